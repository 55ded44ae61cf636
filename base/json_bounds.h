// Limits on JSON that comes from outside the program (agent-protocol lines, game records,
// state.json, metrics lines), checked before a parser sees the text. nlohmann::json copies and
// destroys nested values recursively, so a line of 150,000 '[' overflows the stack; a cheap scan
// refuses such text with a message instead.
#ifndef LCFR_BASE_JSON_BOUNDS_H_
#define LCFR_BASE_JSON_BOUNDS_H_

#include <climits>
#include <cstddef>
#include <string_view>

#include "absl/status/status.h"

namespace lcfr {

// Deeper than any document this program reads or writes (a game record nests 3 levels).
inline constexpr int kMaxJsonDepth = 64;
// The default size limit: a game record or a metrics line is a few kilobytes.
inline constexpr size_t kMaxJsonBytes = size_t{16} << 20;

// InvalidArgument when `text` is longer than `max_bytes` or nests arrays and objects deeper than
// kMaxJsonDepth (brackets inside strings do not count); the message gives the byte offset.
absl::Status CheckJsonBounds(std::string_view text, size_t max_bytes = kMaxJsonBytes);

// An integer JSON value (is_number_integer()) as long long, saturating: nlohmann keeps
// 18446744073709551615 as an unsigned number, which get<long long>() wraps to -1. Every caller
// range-checks the result, so a saturated value is reported as out of range.
template <typename JsonT>
long long SaturatedInteger(const JsonT& value) {
  if (value.is_number_unsigned()) {
    const auto u = value.template get<unsigned long long>();
    return u > static_cast<unsigned long long>(LLONG_MAX) ? LLONG_MAX : static_cast<long long>(u);
  }
  return value.template get<long long>();
}

}  // namespace lcfr

#endif  // LCFR_BASE_JSON_BOUNDS_H_
