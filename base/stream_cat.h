// Message building with iostreams, for translation units that include libtorch: the torch
// wheel bundles fmt 12 headers that shadow Debian's fmt 9 once torch's include directories are
// on the path, so code there must not use fmt (or base/strings.h). Elsewhere prefer
// lcfr::StrCat from base/strings.h.
#ifndef LCFR_BASE_STREAM_CAT_H_
#define LCFR_BASE_STREAM_CAT_H_

#include <sstream>
#include <string>

namespace lcfr {

template <typename... Args>
std::string StreamCat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

}  // namespace lcfr

#endif  // LCFR_BASE_STREAM_CAT_H_
