#include "engine/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/stream_cat.h"

namespace lcfr {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 20;

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path)
    : path_(std::move(path)), temporary_(path_ + ".tmp") {
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) Fail("cannot create it");
  buffer_.reserve(kBufferBytes);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) std::remove(temporary_.c_str());
}

void AtomicFileWriter::Fail(const char* what) {
  if (!status_.ok()) return;
  status_ = absl::UnavailableError(
      StreamCat("cannot write ", path_, ": ", what, ": ", std::strerror(errno)));
}

void AtomicFileWriter::WriteThrough(const char* data, size_t size) {
  size_t done = 0;
  while (status_.ok() && done < size) {
    const ssize_t n = ::write(fd_, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      Fail("write");
      break;
    }
    done += static_cast<size_t>(n);
  }
}

void AtomicFileWriter::Flush() {
  WriteThrough(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void AtomicFileWriter::Write(const void* data, size_t size) {
  if (!status_.ok()) return;
  const char* bytes = static_cast<const char*>(data);
  if (buffer_.size() + size > kBufferBytes) Flush();
  if (size >= kBufferBytes) {
    WriteThrough(bytes, size);  // large pieces go straight through
  } else {
    buffer_.append(bytes, size);
  }
}

absl::Status AtomicFileWriter::Commit() {
  if (status_.ok()) Flush();
  if (fd_ >= 0) {
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) Fail("close");
  }
  if (status_.ok() && std::rename(temporary_.c_str(), path_.c_str()) != 0) Fail("rename");
  if (!status_.ok()) {
    std::remove(temporary_.c_str());
    return status_;
  }
  committed_ = true;
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, std::string_view text) {
  AtomicFileWriter writer(path);
  writer.Write(text.data(), text.size());
  return writer.Commit();
}

}  // namespace lcfr
