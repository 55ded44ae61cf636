#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "base/files.h"
#include "base/stream_cat.h"

namespace lcfr {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 20;
constexpr std::string_view kTemporaryInfix = ".tmp.";

// The temporaries open now, for the signal handler: a fixed table of paths whose state is read
// and written atomically (lock-free, so the handler may read it). 0 free, 1 being filled, 2 live.
constexpr int kSlots = 256;
constexpr size_t kMaxPath = 4096;
struct Slot {
  std::atomic<int> state{0};
  char path[kMaxPath];
};
Slot g_slots[kSlots];
static_assert(std::atomic<int>::is_always_lock_free);

// Its slot, or -1 when the table is full (then a signal may leave this temporary behind).
int Register(const std::string& path) {
  if (path.size() >= kMaxPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_slots[i].state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      g_slots[i].state.store(2, std::memory_order_release);
      return i;
    }
  }
  return -1;
}

void Unregister(int slot) {
  if (slot >= 0) g_slots[slot].state.store(0, std::memory_order_release);
}

extern "C" void RemoveTemporariesAndReraise(int signal) {
  for (Slot& slot : g_slots) {
    if (slot.state.load(std::memory_order_acquire) == 2) (void)::unlink(slot.path);
  }
  // SA_RESETHAND restored the default action; the signal, blocked while this handler runs, is
  // delivered again on return and ends the process as it would have.
  (void)::raise(signal);
}

// A new file beside `target` that no other writer has: target.tmp.<pid>.<n>, created exclusively.
int CreateTemporary(const std::string& target, std::string& name) {
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = StreamCat(target, kTemporaryInfix, ::getpid(), ".",
                     counter.fetch_add(1, std::memory_order_relaxed));
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

}  // namespace

bool IsTemporaryOf(std::string_view name, std::string_view base) {
  return name.size() > base.size() + kTemporaryInfix.size() &&
         name.substr(0, base.size()) == base &&
         name.substr(base.size(), kTemporaryInfix.size()) == kTemporaryInfix;
}

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  buffer_.reserve(kBufferBytes);
  // What the path is decides how it is written.
  bool atomic = true;
  target_ = path_;
  struct stat link;
  if (::lstat(path_.c_str(), &link) != 0) {
    if (errno != ENOENT) {
      Fail("cannot inspect it");
      return;
    }
  } else if (S_ISDIR(link.st_mode)) {
    status_ = absl::FailedPreconditionError(StreamCat("cannot write ", path_, ": is a directory"));
    return;
  } else if (S_ISLNK(link.st_mode)) {
    // A link to a regular file: its target is replaced, the link kept. Anything else it names
    // (a device, nothing, a loop) is opened through the link below.
    char* real = ::realpath(path_.c_str(), nullptr);
    struct stat info;
    if (real != nullptr && ::stat(real, &info) == 0 && S_ISDIR(info.st_mode)) {
      std::free(real);
      status_ = absl::FailedPreconditionError(
          StreamCat("cannot write ", path_, ": is a link to a directory"));
      return;
    }
    if (real != nullptr && ::stat(real, &info) == 0 && S_ISREG(info.st_mode)) {
      target_ = real;
    } else {
      atomic = false;
    }
    std::free(real);
  } else if (!S_ISREG(link.st_mode)) {
    atomic = false;  // a device, a FIFO, a socket: written through, never replaced
  }
  if (!atomic) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) Fail("cannot open it");
    return;
  }
  fd_ = CreateTemporary(target_, temporary_);
  if (fd_ < 0) {
    temporary_.clear();
    Fail("cannot create it");
    return;
  }
  slot_ = Register(temporary_);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temporary_.empty()) std::remove(temporary_.c_str());
  Unregister(slot_);
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
  if (status_.ok() && !temporary_.empty() &&
      std::rename(temporary_.c_str(), target_.c_str()) != 0) {
    Fail("rename");
  }
  if (!status_.ok()) {
    if (!temporary_.empty()) std::remove(temporary_.c_str());
    Unregister(slot_);
    slot_ = -1;
    return status_;
  }
  committed_ = true;
  Unregister(slot_);
  slot_ = -1;
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, std::string_view text) {
  AtomicFileWriter writer(path);
  writer.Write(text.data(), text.size());
  return writer.Commit();
}

absl::Status WriteFilesTogether(std::span<const std::pair<std::string, std::string_view>> files) {
  std::vector<std::unique_ptr<AtomicFileWriter>> writers;
  for (const auto& [path, bytes] : files) {
    writers.push_back(std::make_unique<AtomicFileWriter>(path));
    writers.back()->Write(bytes.data(), bytes.size());
    if (!writers.back()->status().ok()) return writers.back()->status();
  }
  // A hard link to each file about to be replaced, to put it back if a later rename fails;
  // registered like a temporary, so that a signal removes it too.
  struct Backup {
    std::string path;  // "" when there was no file, or it could not be linked
    int slot = -1;
  };
  std::vector<Backup> backups(writers.size());
  static std::atomic<uint64_t> counter{0};
  for (size_t i = 0; i < writers.size(); ++i) {
    if (writers[i]->writes_through() || !PathExists(writers[i]->target())) continue;
    const std::string name = StreamCat(writers[i]->target(), kTemporaryInfix, ::getpid(), ".b",
                                       counter.fetch_add(1, std::memory_order_relaxed));
    if (::link(writers[i]->target().c_str(), name.c_str()) == 0) {
      backups[i] = {name, Register(name)};
    }
  }
  absl::Status status = absl::OkStatus();
  size_t done = 0;
  for (; done < writers.size() && status.ok(); ++done) status = writers[done]->Commit();
  if (!status.ok()) {
    // writers[done - 1] failed and left its file as it was; put back the ones before it.
    for (size_t i = 0; i + 1 < done; ++i) {
      const std::string& target = writers[i]->target();
      if (writers[i]->writes_through()) continue;
      if (!backups[i].path.empty()) {
        if (std::rename(backups[i].path.c_str(), target.c_str()) == 0) backups[i].path.clear();
      } else {
        std::remove(target.c_str());
      }
    }
  }
  for (const Backup& backup : backups) {
    if (!backup.path.empty()) std::remove(backup.path.c_str());
    Unregister(backup.slot);
  }
  return status;
}

void InstallTemporaryFileCleanup() {
  for (const int signal : {SIGINT, SIGTERM}) {
    struct sigaction current;
    if (::sigaction(signal, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) continue;
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_handler = &RemoveTemporariesAndReraise;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    (void)::sigaction(signal, &action, nullptr);
  }
}

}  // namespace lcfr
