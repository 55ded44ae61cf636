// String building for messages, on top of fmt. (Debian's Abseil is built with its own
// string_view, which absl::StrCat cannot take from std::string_view; these helpers take
// anything fmt can format, absl::string_view included.)
#ifndef LCFR_BASE_STRINGS_H_
#define LCFR_BASE_STRINGS_H_

#include <iterator>
#include <string>
#include <string_view>

#include "absl/strings/string_view.h"
#include "fmt/format.h"

template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(absl::string_view s, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(std::string_view(s.data(), s.size()), ctx);
  }
};

namespace lcfr {

// Concatenates the fmt "{}" rendering of every argument.
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  (fmt::format_to(std::back_inserter(out), "{}", args), ...);
  return out;
}

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  (fmt::format_to(std::back_inserter(*out), "{}", args), ...);
}

}  // namespace lcfr

#endif  // LCFR_BASE_STRINGS_H_
