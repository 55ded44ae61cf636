#include "traversal/cfr.h"

#include "base/strings.h"

namespace lcfr::traversal {
namespace {

constexpr Field<CfrConfig> kCfrFields[] = {
    Choice<&CfrConfig::scheme>("scheme", kSchemeNames, "sampling scheme (traversal/cfr.h)"),
    Number("epsilon", &CfrConfig::epsilon, 1e-9, 1,
           "outcome sampling: exploration at traverser decisions, in (0, 1]"),
    Number("hybrid_depth", &CfrConfig::hybrid_depth, 0, 64,
           "hybrid: traverser decisions expanded before on-policy sampling"),
    Number("hybrid_actions", &CfrConfig::hybrid_actions, 0, 32,
           "hybrid: actions expanded per node in that region (0: all legal)"),
    Number("hybrid_epsilon", &CfrConfig::hybrid_epsilon, 0, 1,
           "hybrid: exploration in the sampled tail"),
    Number("start_depth_max", &CfrConfig::start_depth_max, 0, 1e6,
           "random starts: a prefix of uniform-in-[0, N] decisions, so samples cover whole games "
           "(escher: of its value traversals, one player on the sampling policy)"),
    Number("strategy_sample_rate", &CfrConfig::strategy_sample_rate, 1e-9, 1,
           "probability that an opponent decision yields a strategy sample (weight 1/rate)"),
    Flag("common_random_numbers", &CfrConfig::common_random_numbers,
         "expanded actions' subtrees share their random stream (less noisy regrets, unbiased)"),
    Number("payoff_scale", &CfrConfig::payoff_scale, 0, 1e9,
           "payoffs are divided by this (0: the game's default; Lost Cities 100 points)"),
    Number("value_from_iteration", &CfrConfig::value_from_iteration, 1, 1e9,
           "value scheme: tail decisions yield advantage samples from this iteration on"),
    Number("value_sample_rate", &CfrConfig::value_sample_rate, 1e-9, 1,
           "value: probability that a tail decision of the traverser is recorded; escher: that a "
           "decision of a value traversal is"),
    Number("tail_cap", &CfrConfig::tail_cap, 0, 1e6,
           "value: a traversal's path is cut after N decisions from its start, its leaf the value "
           "network's estimate (0: never)"),
    Choice<&CfrConfig::sampling_policy>(
        "sampling_policy", kSamplingPolicyNames,
        "escher: the traverser's fixed sampling policy (uniform | balanced over action classes)"),
    Number("value_epsilon", &CfrConfig::value_epsilon, 0, 0.999,
           "escher: exploration in the value traversals (returns importance-corrected)"),
};

}  // namespace

std::span<const Field<CfrConfig>> CfrConfigFields() { return kCfrFields; }

std::string_view SchemeName(Scheme scheme) {
  return NameOf(kSchemeNames, static_cast<int>(scheme));
}

absl::StatusOr<Scheme> ParseScheme(std::string_view name) {
  return ParseEnum<Scheme>(kSchemeNames, name, "sampling scheme");
}

PerKind<bool> SchemeSampleKinds(Scheme scheme) {
  PerKind<bool> kinds;
  VisitScheme(scheme, [&kinds](auto s) {
    kinds[SampleKind::kAdvantage] = true;
    kinds[SampleKind::kStrategy] = true;
    kinds[SampleKind::kValue] = decltype(s)::kValues;
  });
  return kinds;
}

absl::Status CfrConfig::Validate() const {
  if (tail_cap > 0 && scheme != Scheme::kValue) {
    return absl::InvalidArgumentError(
        StrCat("tail_cap: ", tail_cap,
               " needs scheme value (the cut leaf is the value network's estimate), not ",
               SchemeName(scheme)));
  }
  return CheckRanges<CfrConfig>(*this, kCfrFields, "");
}

}  // namespace lcfr::traversal
