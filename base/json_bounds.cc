#include "base/json_bounds.h"

#include "base/strings.h"

namespace lcfr {

absl::Status CheckJsonBounds(std::string_view text, size_t max_bytes) {
  if (text.size() > max_bytes) {
    return absl::InvalidArgumentError(
        StrCat("JSON text of ", text.size(), " bytes is over the limit of ", max_bytes));
  }
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        return absl::InvalidArgumentError(
            StrCat("JSON nested deeper than ", kMaxJsonDepth, " levels (at byte ", i, ")"));
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return absl::OkStatus();
}

}  // namespace lcfr
