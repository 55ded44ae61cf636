// Which policy a network-backed player plays. Torch-free.
#ifndef LCFR_PLAY_PLAY_POLICY_H_
#define LCFR_PLAY_PLAY_POLICY_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lcfr::play {

// Which policy a network-backed player plays (lcfr eval, agent, play: --policy, --greedy; the
// trainer's evaluations, evaluation.policies):
// - average: the strategy network's masked softmax, Deep CFR's average strategy;
// - current: regret matching of the advantage network of the seat it plays (argmax fallback when
//   no advantage is positive), the last iterate;
// and either sampled, or greedy: the most probable legal action, ties broken by the game's
// seeded random stream (Ganzfried, Sandholm & Waugh's purification).
struct PlayPolicy {
  enum class Source { kAverage, kCurrent };
  Source source = Source::kAverage;
  bool greedy = false;

  // "average", "average-greedy", "current", "current-greedy".
  std::string Name() const;
  // One of those names; errors list them.
  static absl::StatusOr<PlayPolicy> Parse(std::string_view name);
  bool operator==(const PlayPolicy&) const = default;
};

}  // namespace lcfr::play

#endif  // LCFR_PLAY_PLAY_POLICY_H_
