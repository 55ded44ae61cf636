// One line for an exception that reaches a boundary (a command, a thread, a component that turns
// exceptions into statuses). libtorch's c10::Error carries a backtrace after its first line, and
// std::bad_alloc says only "std::bad_alloc". Header-only and free of fmt, so that translation
// units that include libtorch can use it.
#ifndef LCFR_ENGINE_ERROR_TEXT_H_
#define LCFR_ENGINE_ERROR_TEXT_H_

#include <exception>
#include <new>
#include <string>

namespace lcfr {

inline std::string ErrorText(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) return "out of memory (std::bad_alloc)";
  std::string text = e.what() != nullptr ? e.what() : "";
  const size_t end = text.find('\n');
  if (end != std::string::npos) text.resize(end);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.pop_back();
  return text.empty() ? std::string("unknown error") : text;
}

}  // namespace lcfr

#endif  // LCFR_ENGINE_ERROR_TEXT_H_
