// Writing a file so that readers never see it half-written: the text goes to PATH.tmp, which
// is then renamed over PATH (atomic on POSIX file systems). Plain POSIX and iostreams, no fmt
// and no std::filesystem, so that translation units that include libtorch can use it too
// (inference/README.md).
#ifndef LCFR_ENGINE_ATOMIC_FILE_H_
#define LCFR_ENGINE_ATOMIC_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace lcfr {

absl::Status WriteFileAtomically(const std::string& path, std::string_view text);

}  // namespace lcfr

#endif  // LCFR_ENGINE_ATOMIC_FILE_H_
