// One line for an exception that reaches a boundary (a command, a thread, a component that turns
// exceptions into statuses). libtorch's c10::Error carries a backtrace after its first line, and
// std::bad_alloc says only "std::bad_alloc". Header-only and free of fmt, so that translation
// units that include libtorch can use it.
#ifndef LCFR_BASE_ERROR_TEXT_H_
#define LCFR_BASE_ERROR_TEXT_H_

#include <exception>
#include <new>
#include <string>
#include <string_view>

namespace lcfr {

inline std::string ErrorText(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) return "out of memory (std::bad_alloc)";
  std::string text = e.what() != nullptr ? e.what() : "";
  const size_t end = text.find('\n');
  if (end != std::string::npos) text.resize(end);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.pop_back();
  return text.empty() ? std::string("unknown error") : text;
}

// `text` fit for a one-line message: bytes outside printable ASCII as \xNN, at most
// `max_bytes` of it, then "...".
inline std::string Printable(std::string_view text, size_t max_bytes = 64) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < text.size() && i < max_bytes; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

}  // namespace lcfr

#endif  // LCFR_BASE_ERROR_TEXT_H_
