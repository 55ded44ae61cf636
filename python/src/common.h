// What the bindings of the Python package share: absl::Status to Python exceptions, the game a
// state or environment holds, and rules from keyword arguments. The package is a composition
// root of its own (beside apps/): it sees every library, libtorch included, through their headers.
#ifndef LCFR_PYTHON_SRC_COMMON_H_
#define LCFR_PYTHON_SRC_COMMON_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/lost_cities.h"
#include "nanobind/nanobind.h"

namespace lcfr::python {

namespace nb = nanobind;

// Raises the Python exception that fits `status` (ValueError for bad input, FileNotFoundError for
// a missing file, RuntimeError otherwise) with its message, which is the CLI's.
[[noreturn]] void Raise(const absl::Status& status);
inline void Check(const absl::Status& status) {
  if (!status.ok()) Raise(status);
}
template <typename T>
T Take(absl::StatusOr<T> value) {
  if (!value.ok()) Raise(value.status());
  return *std::move(value);
}

// The game of a rule set, shared by the states and environments made from it.
// (Not const: nanobind hands shared objects to Python as shared_ptr<T>; never changed.)
using GamePtr = std::shared_ptr<engine::LostCities>;

// Rules from keyword arguments named as engine/rules.h's fields (every key of docs/rules.md);
// errors name the key. `base`: the values the keywords change.
engine::Rules RulesFromKwargs(const nb::kwargs& kwargs, engine::Rules base = {});

// The bindings, one function per source file.
void BindEngine(nb::module_& m);
void BindPlayers(nb::module_& m);
void BindVecEnv(nb::module_& m);

}  // namespace lcfr::python

#endif  // LCFR_PYTHON_SRC_COMMON_H_
