// Shared by the fuzz targets: the input as text, and a property check that crashes (libFuzzer
// then keeps the input) when a parser's own round trip fails.
#ifndef LCFR_FUZZ_FUZZ_UTIL_H_
#define LCFR_FUZZ_FUZZ_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace lcfr::fuzz {

inline std::string_view Text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

inline void Require(bool ok, const char* property) {
  if (ok) return;
  std::fprintf(stderr, "fuzz property violated: %s\n", property);
  std::abort();
}

}  // namespace lcfr::fuzz

#endif  // LCFR_FUZZ_FUZZ_UTIL_H_
