// File-system operations without a shell: plain POSIX calls, so that no character of a path can
// change what they do (a run directory named "r';touch X;'" is just a name). No fmt and no
// std::filesystem (libtorch.so interposes its own copy), so translation units that include
// libtorch can use them (inference/README.md).
#ifndef LCFR_BASE_FILES_H_
#define LCFR_BASE_FILES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace lcfr {

bool PathExists(const std::string& path);
// mkdir -p: creates `path` and its missing parents (mode 0755); an existing directory is fine.
absl::Status MakeDirectories(const std::string& path);
// rm -rf: removes `path` and everything below it, without following symbolic links; a missing
// path is fine.
absl::Status RemoveTree(const std::string& path);
// Removes the regular files directly in `dir` whose names start with `prefix` and end with
// `suffix`; returns how many were removed.
absl::StatusOr<int> RemoveFiles(const std::string& dir, std::string_view prefix,
                                std::string_view suffix);
// The names in `dir` (not "." or ".."), sorted.
absl::StatusOr<std::vector<std::string>> ListDirectory(const std::string& dir);
// Makes `to` name the file `from` names: a hard link (no data is copied), or, where the file
// system refuses links, a copy written atomically (base/atomic_file.h). `to` must not exist.
absl::Status LinkOrCopyFile(const std::string& from, const std::string& to);
// OK when `path` names a regular file (through symbolic links); otherwise NotFound or
// InvalidArgument saying what the path is instead: "PATH: no such file", "PATH: is a directory",
// "PATH: is a FIFO (named pipe), not a regular file", "PATH: is a character device (such as
// /dev/null), not a regular file", "PATH: is a symbolic link loop", "PATH: is a symbolic link to
// a missing file", "PATH: cannot be read: <strerror>".
absl::Status CheckRegularFile(const std::string& path);
// The same, but a FIFO (a pipe: `<(command)`, /dev/stdin fed by a pipe) is fine too: for what is
// read once from start to end. Devices (/dev/zero would never end), sockets and directories are
// not.
absl::Status CheckReadableFile(const std::string& path);
// OK when `path` names a directory (through symbolic links); otherwise an error saying what it
// is instead, as CheckRegularFile's ("PATH: no such directory", "PATH: is a file, not a
// directory", ...).
absl::Status CheckDirectory(const std::string& path);
// The whole of a regular file or a pipe (CheckReadableFile's errors for anything else).
absl::StatusOr<std::string> ReadFileToString(const std::string& path);
// The memory the system can still give (Linux: MemAvailable of /proc/meminfo), in bytes; nullopt
// where it cannot be read.
std::optional<int64_t> AvailableMemoryBytes();

}  // namespace lcfr

#endif  // LCFR_BASE_FILES_H_
