// Which policy a network-backed player plays, and a model's card. Torch-free.
#ifndef LCFR_PLAY_PLAY_POLICY_H_
#define LCFR_PLAY_PLAY_POLICY_H_

#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/fields.h"

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

// A model's card: how it plays by default, wherever its file lives (the `play:` section of its
// YAML, training/config.h; lcfr agent, play and eval read it, and their flags override it).
struct PlayCard {
  std::string policy = "current";  // the play policy, by PlayPolicy's name
  bool search = false;             // search every decision (agent, play)
  // With the search, the rollouts' networks file, relative to the model's own file ("" = the
  // model itself), and the rollouts a decision (0 = the search's default).
  std::string rollout_model;
  int rollouts = 0;
  // The policy parses; the rollouts are in range.
  absl::Status Validate() const;
};
std::span<const Field<PlayCard>> PlayCardFields();

}  // namespace lcfr::play

#endif  // LCFR_PLAY_PLAY_POLICY_H_
