#include "engine/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "engine/stream_cat.h"

namespace lcfr {

absl::Status WriteFileAtomically(const std::string& path, std::string_view text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::remove(temporary.c_str());
      return absl::InternalError(StreamCat("cannot write ", path));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    return absl::InternalError(StreamCat("cannot write ", path, ": ", reason));
  }
  return absl::OkStatus();
}

}  // namespace lcfr
