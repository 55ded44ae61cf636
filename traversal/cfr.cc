#include "traversal/cfr.h"

#include "engine/strings.h"

namespace lcfr::traversal {

std::string_view SchemeName(Scheme scheme) {
  switch (scheme) {
    case Scheme::kExternal:
      return "external";
    case Scheme::kOutcome:
      return "outcome";
    case Scheme::kHybrid:
      return "hybrid";
    case Scheme::kValue:
      return "value";
  }
  return "?";
}

absl::StatusOr<Scheme> ParseScheme(std::string_view name) {
  for (Scheme scheme : {Scheme::kExternal, Scheme::kOutcome, Scheme::kHybrid, Scheme::kValue}) {
    if (name == SchemeName(scheme)) return scheme;
  }
  return absl::InvalidArgumentError(lcfr::StrCat(
      "unknown sampling scheme '", name, "' (expected external, outcome, hybrid or value)"));
}

absl::Status CfrConfig::Validate() const {
  if (!(epsilon > 0 && epsilon <= 1)) {
    return absl::InvalidArgumentError(lcfr::StrCat("epsilon = ", epsilon,
                                                   ": must be in (0, 1] (outcome sampling needs "
                                                   "exploration to stay unbiased)"));
  }
  if (hybrid_depth < 0) {
    return absl::InvalidArgumentError(
        lcfr::StrCat("hybrid_depth = ", hybrid_depth, ": must be >= 0"));
  }
  if (hybrid_actions < 0 || hybrid_actions > 32) {
    return absl::InvalidArgumentError(
        lcfr::StrCat("hybrid_actions = ", hybrid_actions, ": must be in [0, 32] (0 = all)"));
  }
  if (!(hybrid_epsilon >= 0 && hybrid_epsilon <= 1)) {
    return absl::InvalidArgumentError(
        lcfr::StrCat("hybrid_epsilon = ", hybrid_epsilon, ": must be in [0, 1]"));
  }
  if (!(payoff_scale >= 0)) {
    return absl::InvalidArgumentError(
        lcfr::StrCat("payoff_scale = ", payoff_scale, ": must be >= 0 (0 = the game's default)"));
  }
  if (!(strategy_sample_rate > 0 && strategy_sample_rate <= 1)) {
    return absl::InvalidArgumentError(
        lcfr::StrCat("strategy_sample_rate = ", strategy_sample_rate, ": must be in (0, 1]"));
  }
  if (start_depth_max < 0) {
    return absl::InvalidArgumentError(lcfr::StrCat("start_depth_max = ", start_depth_max,
                                                   ": must be >= 0 (0 = start at the deal)"));
  }
  if (value_from_iteration < 1) {
    return absl::InvalidArgumentError(
        lcfr::StrCat("value_from_iteration = ", value_from_iteration, ": must be >= 1"));
  }
  if (!(value_sample_rate > 0 && value_sample_rate <= 1)) {
    return absl::InvalidArgumentError(
        lcfr::StrCat("value_sample_rate = ", value_sample_rate, ": must be in (0, 1]"));
  }
  return absl::OkStatus();
}

}  // namespace lcfr::traversal
