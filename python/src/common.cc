#include "python/src/common.h"

#include <string>

#include "base/stream_cat.h"
#include "nanobind/stl/string.h"

namespace lcfr::python {

void Raise(const absl::Status& status) {
  const std::string message(status.message());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kDataLoss:
      throw nb::value_error(message.c_str());
    case absl::StatusCode::kNotFound:
      PyErr_SetString(PyExc_FileNotFoundError, message.c_str());
      throw nb::python_error();
    default:
      throw std::runtime_error(message);
  }
}

engine::Rules RulesFromKwargs(const nb::kwargs& kwargs, engine::Rules base) {
  for (auto [key, value] : kwargs) {
    const std::string name = nb::cast<std::string>(key);
    if (!nb::isinstance<nb::int_>(value) || nb::isinstance<nb::bool_>(value)) {
      throw nb::type_error(
          StreamCat("rules: ", name, ": an integer, not ", nb::inst_name(value).c_str()).c_str());
    }
    Check(engine::SetRulesField(base, name, nb::cast<long long>(value)));
  }
  Check(engine::Validate(base));
  return base;
}

}  // namespace lcfr::python
