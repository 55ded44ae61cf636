#include "training/checksums.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "base/atomic_file.h"
#include "base/files.h"
#include "base/json_bounds.h"
#include "base/stream_cat.h"
#include "nlohmann/json.hpp"

namespace lcfr::training {
namespace {

constexpr int kFormat = 1;

std::string Hex(uint32_t crc) {
  char text[9];
  std::snprintf(text, sizeof(text), "%08x", crc);
  return text;
}

bool ParseHex(const std::string& text, uint32_t* crc) {
  if (text.size() != 8) return false;
  uint32_t value = 0;
  for (char c : text) {
    value <<= 4;
    if (c >= '0' && c <= '9') {
      value |= static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      value |= static_cast<uint32_t>(c - 'a' + 10);
    } else {
      return false;
    }
  }
  *crc = value;
  return true;
}

}  // namespace

absl::StatusOr<FileChecksum> ChecksumFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(StreamCat(path, ": cannot open: ", std::strerror(errno)));
  FileChecksum sum;
  uLong crc = crc32_z(0L, Z_NULL, 0);
  std::vector<unsigned char> buffer(size_t{1} << 20);
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      return absl::UnavailableError(StreamCat(path, ": cannot read: ", reason));
    }
    if (n == 0) break;
    crc = crc32_z(crc, buffer.data(), static_cast<size_t>(n));
    sum.bytes += n;
  }
  ::close(fd);
  sum.crc32 = static_cast<uint32_t>(crc);
  return sum;
}

FileChecksum ChecksumBytes(std::string_view bytes) {
  FileChecksum sum;
  sum.bytes = static_cast<int64_t>(bytes.size());
  sum.crc32 = static_cast<uint32_t>(crc32_z(
      crc32_z(0L, Z_NULL, 0), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()));
  return sum;
}

std::string ChecksumsText(const std::map<std::string, FileChecksum>& files) {
  nlohmann::ordered_json listed = nlohmann::ordered_json::object();
  for (const auto& [name, sum] : files) {
    listed[name] = {{"bytes", sum.bytes}, {"crc32", Hex(sum.crc32)}};
  }
  nlohmann::ordered_json manifest;
  manifest["format"] = kFormat;
  manifest["files"] = std::move(listed);
  return manifest.dump(1) + "\n";
}

absl::Status WriteChecksums(const std::string& dir, const std::string& previous_dir) {
  Checksums previous;
  if (!previous_dir.empty()) {
    absl::StatusOr<Checksums> loaded = Checksums::Load(previous_dir);
    if (loaded.ok()) previous = *std::move(loaded);  // unreadable: every file is read again
  }
  absl::StatusOr<std::vector<std::string>> names = ListDirectory(dir);
  if (!names.ok()) return names.status();
  std::map<std::string, FileChecksum> files;
  for (const std::string& name : *names) {
    if (name == kChecksumsFile) continue;
    const std::string path = dir + "/" + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    FileChecksum sum;
    const auto listed = previous.files().find(name);
    struct stat before {};
    if (listed != previous.files().end() &&
        ::stat((previous_dir + "/" + name).c_str(), &before) == 0 && before.st_ino == st.st_ino &&
        before.st_dev == st.st_dev && listed->second.bytes == st.st_size) {
      sum = listed->second;  // the same file (a hard link): already summed
    } else {
      absl::StatusOr<FileChecksum> computed = ChecksumFile(path);
      if (!computed.ok()) return computed.status();
      sum = *computed;
    }
    files[name] = sum;
  }
  return WriteFileAtomically(dir + "/" + kChecksumsFile, ChecksumsText(files));
}

absl::StatusOr<Checksums> Checksums::Load(const std::string& dir) {
  Checksums checksums;
  checksums.dir_ = dir;
  const std::string path = dir + "/" + kChecksumsFile;
  if (!PathExists(path)) return checksums;
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  auto invalid = [&path](auto&&... parts) {
    return absl::InvalidArgumentError(StreamCat(path, ": ", parts...));
  };
  if (absl::Status s = CheckJsonBounds(*text); !s.ok()) return invalid(s.message());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*text);
  } catch (const std::exception& e) {
    return invalid("not JSON (", e.what(), ")");
  }
  if (!j.is_object() || !j.contains("format") || !j["format"].is_number_integer() ||
      SaturatedInteger(j["format"]) != kFormat) {
    return invalid("expected an object with \"format\": ", kFormat);
  }
  if (!j.contains("files") || !j["files"].is_object()) {
    return invalid("\"files\" must be an object");
  }
  for (const auto& [name, entry] : j["files"].items()) {
    FileChecksum sum;
    if (!entry.is_object() || !entry.contains("bytes") || !entry["bytes"].is_number_integer() ||
        SaturatedInteger(entry["bytes"]) < 0 || !entry.contains("crc32") ||
        !entry["crc32"].is_string() || !ParseHex(entry["crc32"].get<std::string>(), &sum.crc32)) {
      return invalid("files.", name, ": expected {\"bytes\": N, \"crc32\": \"8 hex digits\"}");
    }
    sum.bytes = SaturatedInteger(entry["bytes"]);
    checksums.files_[name] = sum;
  }
  checksums.present_ = true;
  return checksums;
}

absl::Status Checksums::Verify(const std::string& name) const {
  if (!present_) return absl::OkStatus();
  const std::string path = dir_ + "/" + name;
  const auto listed = files_.find(name);
  if (listed == files_.end()) {
    return absl::DataLossError(StreamCat(path, ": not listed in ", kChecksumsFile,
                                         " (a file of another checkpoint or model?)"));
  }
  absl::StatusOr<FileChecksum> sum = ChecksumFile(path);
  if (!sum.ok()) return sum.status();
  if (sum->bytes != listed->second.bytes) {
    return absl::DataLossError(StreamCat(path, ": ", sum->bytes, " bytes, ", kChecksumsFile,
                                         " says ", listed->second.bytes,
                                         ": the file is truncated or corrupt"));
  }
  if (sum->crc32 != listed->second.crc32) {
    return absl::DataLossError(StreamCat(path, ": checksum mismatch (crc32 ", Hex(sum->crc32), ", ",
                                         kChecksumsFile, " says ", Hex(listed->second.crc32),
                                         "): the file is corrupt"));
  }
  return absl::OkStatus();
}

}  // namespace lcfr::training
