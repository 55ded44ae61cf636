// The traversals' configuration: the sampling schemes by name and CfrConfig, the YAML section
// `traversal`'s scheme keys (traversal/cfr.h runs them; traversal/cfr.cc holds the field table).
#ifndef LCFR_TRAVERSAL_CFR_CONFIG_H_
#define LCFR_TRAVERSAL_CFR_CONFIG_H_

#include <span>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/fields.h"

namespace lcfr::traversal {

enum class Scheme { kExternal, kOutcome, kHybrid, kValue, kEscher };
// The schemes' configuration names, in this order: "external", "outcome", "hybrid", "value",
// "escher".
inline constexpr EnumName kSchemeNames[] = {
    {"external", 0}, {"outcome", 1}, {"hybrid", 2}, {"value", 3}, {"escher", 4}};
std::string_view SchemeName(Scheme scheme);
absl::StatusOr<Scheme> ParseScheme(std::string_view name);

// ESCHER's fixed sampling policy xi for the traverser's own decisions (FixedPolicy,
// traversal/cfr.h).
enum class SamplingPolicy { kUniform, kBalanced };
inline constexpr EnumName kSamplingPolicyNames[] = {{"uniform", 0}, {"balanced", 1}};

// The traverser id of ESCHER's value traversals: both players follow their current strategies
// (with value_epsilon exploration) and every decision may record a value sample.
inline constexpr int kValueTraversal = 2;

// The sampling scheme and its parameters (YAML section `traversal`, with SchedulerConfig in
// traversal/runner.h). The defaults are the default training run's (configs/default.yaml).
struct CfrConfig {
  Scheme scheme = Scheme::kValue;
  double epsilon = 0.6;         // outcome sampling: exploration at traverser nodes, in (0, 1]
  int hybrid_depth = 1;         // hybrid: traverser decisions expanded, >= 0
  int hybrid_actions = 0;       // hybrid: actions expanded per node there; 0 = all legal
  double hybrid_epsilon = 0.0;  // hybrid: exploration in the sampled tail, in [0, 1]
  double payoff_scale = 0.0;    // payoffs are divided by this; 0 = the game's default
  // Each of the other player's decisions yields a strategy sample with this probability, its
  // weight multiplied by 1 / rate (unbiased thinning). In (0, 1]. Lost Cities traversals meet
  // thousands of such decisions; all of them would be mostly memory traffic.
  double strategy_sample_rate = 0.1;
  // Random starts: a prefix of uniform-in-[0, start_depth_max] decisions before the scheme runs
  // (see above); 0 = every traversal starts at the deal. >= 0. ESCHER: its value traversals'
  // prefix (EscherTraversal); its regret traversals always start at the deal.
  int start_depth_max = 120;
  // Common random numbers: every expanded action's subtree starts from the same random stream,
  // so the rollouts of different actions share their later random draws. Each subtree's value
  // keeps its distribution, so every estimate stays unbiased. The measured gain is small, because
  // the branches' states diverge at once: on Leduc with external sampling the regret estimates'
  // standard error is 1.3% lower (benchmarks/README.md).
  bool common_random_numbers = true;
  // The value scheme: tail decisions record advantage samples (targets from the value network)
  // from this iteration on, >= 1; before, the value network has not been trained yet.
  int value_from_iteration = 2;
  // The value scheme: each traverser decision of the tail is recorded (a value sample, and an
  // advantage sample from value_from_iteration on) with this probability, in (0, 1].
  double value_sample_rate = 0.05;
  // The value scheme: a traversal's path is cut after this many decisions from its start (the
  // random prefix not counted), >= 0 (0: never). The cut node's value is the value network's
  // sum_a sigma(a) Q(h, a) for its mover, a leaf like a terminal. A policy that draws from the
  // discard piles instead of the deck can keep a game going to the rules' max_decisions: on six
  // colours an early iteration of 6,144 traversals sent 55,411 leaves there and took 523 s of
  // traversal, against 49 s with a cut at 200 (docs/experiments.md). A cut well past a real
  // game's length bounds that cost.
  int tail_cap = 0;
  // ESCHER: the traverser's fixed sampling policy, the same for the whole run.
  SamplingPolicy sampling_policy = SamplingPolicy::kBalanced;
  // ESCHER's value traversals: exploration at each decision, in [0, 1). Every recorded return
  // is importance-corrected for the exploration of the decisions after it. Off by default: on
  // Lost Cities the product of the ratios over a long game blew the value targets up (a value
  // loss of 39.6 at iteration 10 with 0.01, benchmarks/README.md).
  double value_epsilon = 0.0;

  // Ranges (the field table's); errors name the field and the allowed range.
  absl::Status Validate() const;
};

// CfrConfig's field table: parsing, ranges, help and the dump (base/fields.h).
std::span<const Field<CfrConfig>> CfrConfigFields();

// The settings of the exact checks on small games and of tabular CFR: the hybrid scheme with
// depth 2, every traversal from the deal (no random starts), every decision recorded (no
// thinning). The defaults above are the Lost Cities training run's; this is where the CFR math
// is checked from.
inline CfrConfig FullRecordingCfrConfig() {
  CfrConfig c;
  c.scheme = Scheme::kHybrid;
  c.hybrid_depth = 2;
  c.start_depth_max = 0;
  c.strategy_sample_rate = 1.0;
  c.value_sample_rate = 1.0;
  return c;
}

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_CFR_CONFIG_H_
