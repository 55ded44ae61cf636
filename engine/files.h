// File-system operations without a shell: plain POSIX calls, so that no character of a path can
// change what they do (a run directory named "r';touch X;'" is just a name). No fmt and no
// std::filesystem (libtorch.so interposes its own copy), so translation units that include
// libtorch can use them (inference/README.md).
#ifndef LCFR_ENGINE_FILES_H_
#define LCFR_ENGINE_FILES_H_

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
// system refuses links, a copy written to `to`.tmp and renamed. `to` must not exist.
absl::Status LinkOrCopyFile(const std::string& from, const std::string& to);
// The whole file.
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

}  // namespace lcfr

#endif  // LCFR_ENGINE_FILES_H_
