#include "base/files.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/atomic_file.h"
#include "base/stream_cat.h"

namespace lcfr {
namespace {

absl::Status Errno(const std::string& what, const std::string& path) {
  return absl::InternalError(StreamCat("cannot ", what, " ", path, ": ", std::strerror(errno)));
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

bool PathExists(const std::string& path) {
  struct stat info;
  return ::lstat(path.c_str(), &info) == 0;
}

absl::Status MakeDirectories(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("cannot create a directory with no name");
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = slash == std::string::npos ? path : path.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return Errno("create directory", prefix);
    }
    if (slash == std::string::npos) break;
  }
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return absl::FailedPreconditionError(
        StreamCat("cannot create directory ", path, ": a file of that name is in the way"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> ListDirectory(const std::string& dir) {
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) return Errno("list directory", dir);
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(handle)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(handle);
  std::sort(names.begin(), names.end());
  return names;
}

absl::Status RemoveTree(const std::string& path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) {
    return errno == ENOENT ? absl::OkStatus() : Errno("inspect", path);
  }
  if (S_ISDIR(info.st_mode)) {
    absl::StatusOr<std::vector<std::string>> names = ListDirectory(path);
    if (!names.ok()) return names.status();
    for (const std::string& name : *names) {
      if (absl::Status s = RemoveTree(path + "/" + name); !s.ok()) return s;
    }
    if (::rmdir(path.c_str()) != 0) return Errno("remove directory", path);
    return absl::OkStatus();
  }
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return Errno("remove", path);
  return absl::OkStatus();
}

absl::StatusOr<int> RemoveFiles(const std::string& dir, std::string_view prefix,
                                std::string_view suffix) {
  absl::StatusOr<std::vector<std::string>> names = ListDirectory(dir);
  if (!names.ok()) return names.status();
  int removed = 0;
  for (const std::string& name : *names) {
    if (name.compare(0, prefix.size(), prefix) != 0 || !EndsWith(name, suffix)) continue;
    const std::string path = dir + "/" + name;
    struct stat info;
    if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    if (::unlink(path.c_str()) != 0) return Errno("remove", path);
    ++removed;
  }
  return removed;
}

absl::Status LinkOrCopyFile(const std::string& from, const std::string& to) {
  if (::link(from.c_str(), to.c_str()) == 0) return absl::OkStatus();
  if (errno != EXDEV && errno != EPERM && errno != ENOTSUP && errno != EMLINK) {
    return Errno(StreamCat("link ", from, " to"), to);
  }
  // A copy, written atomically (base/atomic_file.h): `to` appears whole or not at all.
  std::ifstream in(from, std::ios::binary);
  if (!in) return Errno("open", from);
  AtomicFileWriter out(to);
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    out.Write(buffer, static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return absl::InternalError(StreamCat("cannot copy ", from, " to ", to));
  return out.Commit();
}

namespace {

// OK for a regular file (or, with `pipes`, a FIFO); else what the path is instead.
absl::Status CheckFileKind(const std::string& path, bool pipes) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    struct stat link;
    if (error == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      return absl::NotFoundError(StreamCat(path, ": is a symbolic link to a missing file"));
    }
    if (error == ENOENT) return absl::NotFoundError(StreamCat(path, ": no such file"));
    if (error == ELOOP) {
      return absl::InvalidArgumentError(
          StreamCat(path, ": is a symbolic link loop (too many levels of symbolic links)"));
    }
    return absl::InvalidArgumentError(StreamCat(path, ": cannot be read: ", std::strerror(error)));
  }
  if (S_ISREG(info.st_mode) || (pipes && S_ISFIFO(info.st_mode))) return absl::OkStatus();
  const char* what = S_ISDIR(info.st_mode)    ? "is a directory"
                     : S_ISFIFO(info.st_mode) ? "is a FIFO (named pipe), not a regular file"
                     : S_ISCHR(info.st_mode)
                         ? "is a character device (such as /dev/null), not a regular file"
                     : S_ISBLK(info.st_mode)  ? "is a block device, not a regular file"
                     : S_ISSOCK(info.st_mode) ? "is a socket, not a regular file"
                                              : "is not a regular file";
  return absl::InvalidArgumentError(StreamCat(path, ": ", what));
}

}  // namespace

absl::Status CheckRegularFile(const std::string& path) { return CheckFileKind(path, false); }

absl::Status CheckReadableFile(const std::string& path) { return CheckFileKind(path, true); }

absl::Status CheckDirectory(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) return absl::OkStatus();
  if (::stat(path.c_str(), &info) != 0 && errno == ENOENT) {
    return absl::NotFoundError(StreamCat(path, ": no such directory"));
  }
  const absl::Status what = CheckRegularFile(path);
  return absl::InvalidArgumentError(
      StreamCat(what.ok() ? StreamCat(path, ": is a file") : std::string(what.message()),
                ", not a directory"));
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  if (absl::Status readable = CheckReadableFile(path); !readable.ok()) return readable;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(StreamCat(path, ": cannot be read: ", std::strerror(errno)));
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<int64_t> AvailableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace lcfr
