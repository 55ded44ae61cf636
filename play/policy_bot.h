// The network player: a Lost Cities bot that plays a network's policy through the policy
// boundary (traversal::PolicyClient), so it is torch-free and runs the same way over a libtorch
// evaluator, a test double, one forward per decision or as a fiber of a batcher.
#ifndef LCFR_PLAY_POLICY_BOT_H_
#define LCFR_PLAY_POLICY_BOT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/lost_cities.h"
#include "play/bots.h"
#include "play/play_policy.h"
#include "traversal/fiber_batcher.h"

namespace lcfr::play {

// PolicyBot's decision in steps, for callers that ask for many decisions in one batch (the Python
// package's lcfr.Agent): the request it makes, the distribution it plays and how it picks.
struct PolicyQuery {
  int network = 0;
  traversal::Head head = traversal::Head::kRaw;  // kSoftmax for the strategy network
};
// The network and head a decision of seat `player` asks for under `play` (`network` >= 0 names
// the network outright).
PolicyQuery QueryFor(const PlayPolicy& play, int player, int network = -1);
// The distribution played from `outputs`, the network's answer to `query` (`probabilities` may be
// `outputs` itself): the softmax as it is, or regret matching of raw advantages. Returns whether
// regret matching fell back to the argmax (no legal action with a positive advantage).
bool PolicyFromOutputs(const PolicyQuery& query, std::span<const float> outputs, uint32_t legal,
                       std::span<float> probabilities);
// The action played from `probabilities`: the most probable legal one, ties broken by `rng`
// (greedy), or a sample (one draw of `rng`).
int ChooseAction(std::span<const float> probabilities, uint32_t legal, bool greedy, Rng& rng);

// Plays `play`'s policy of the networks behind `policy`. With a fiber PolicyClient, Act suspends
// the fiber until the batch is served. Bound to the rules of the game it is built with: its
// feature and action buffers, and the networks behind the client, are sized by them, so it must
// never be handed a game of other rules (BoundRules says which; Act checks it, always on).
// Not thread-safe: one per fiber or thread.
class PolicyBot : public play::Bot {
 public:
  // `network` >= 0 names the network outright (lcfr eval --network); -1: the play policy's.
  PolicyBot(traversal::PolicyClient* policy, PlayPolicy play, const engine::LostCities& game,
            int network = -1);
  // Aborts with both rule sets when `game` has other rules than the bot's.
  int Act(const engine::LostCities& game, const engine::View& view, Rng& rng) override;
  // The distribution Act plays from: the policy's, or with greedy play uniform over its most
  // probable legal actions (one policy call).
  double Probability(const engine::LostCities& game, const engine::State& state,
                     int action) override;
  std::string Name() const override { return "network"; }
  std::optional<engine::Rules> BoundRules() const override { return rules_; }
  // Decisions taken, and of those, how many fell back to the argmax because no legal action had
  // a positive advantage (regret-matching policies only).
  int64_t decisions() const { return decisions_; }
  int64_t fallbacks() const { return fallbacks_; }
  // The distribution the last Act played from (num_actions entries, 0 at illegal actions).
  std::span<const float> probabilities() const { return probabilities_; }

 private:
  traversal::PolicyClient* policy_;
  PlayPolicy play_;
  engine::Rules rules_;
  int network_;
  std::vector<float> features_;
  std::vector<float> outputs_;
  std::vector<float> probabilities_;
  int64_t decisions_ = 0;
  int64_t fallbacks_ = 0;
};

}  // namespace lcfr::play

#endif  // LCFR_PLAY_POLICY_BOT_H_
