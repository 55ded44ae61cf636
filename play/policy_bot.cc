#include "play/policy_bot.h"

#include <bit>

#include "base/check.h"
#include "traversal/evaluator.h"
#include "traversal/regret_matching.h"

namespace lcfr::play {

PolicyBot::PolicyBot(traversal::PolicyClient* policy, PlayPolicy play,
                     const engine::LostCities& game, int network)
    : policy_(policy),
      play_(play),
      rules_(game.rules()),
      network_(network),
      features_(game.EncodingSize()),
      outputs_(game.num_actions()),
      probabilities_(game.num_actions()) {}

int PolicyBot::Act(const engine::LostCities& game, const engine::View& view, Rng& rng) {
  // The buffers below (and the networks behind policy_) are sized by rules_.
  LCFR_CHECK(game.rules() == rules_)
      << "a network player of rules (" << engine::ToString(rules_) << ") handed a game of rules ("
      << engine::ToString(game.rules()) << ")";
  const uint32_t legal = game.LegalMask(view);
  game.Encode(view, features_);
  const int network = network_ >= 0 ? network_
                      : play_.source == PlayPolicy::Source::kAverage
                          ? traversal::kStrategyNetwork
                          : traversal::AdvantageNetwork(view.player);
  ++decisions_;
  if (network == traversal::kStrategyNetwork) {
    // The strategy network's logits give the average strategy.
    policy_->Evaluate(network, traversal::Head::kSoftmax, features_, legal, probabilities_);
  } else {
    // An advantage network's outputs give its player's current regret-matching strategy; the
    // raw outputs say whether regret matching fell back to the argmax.
    policy_->Evaluate(network, traversal::Head::kRaw, features_, legal, outputs_);
    bool positive = false;
    for (uint32_t m = legal; m; m &= m - 1) positive |= outputs_[std::countr_zero(m)] > 0;
    fallbacks_ += !positive;
    traversal::ApplyHead(outputs_, legal, traversal::Head::kRegretMatching, probabilities_);
  }
  int action;
  if (play_.greedy) {
    float best = -1;
    int ties = 0;
    action = -1;
    for (uint32_t m = legal; m; m &= m - 1) {
      const int a = std::countr_zero(m);
      if (probabilities_[a] > best) {
        best = probabilities_[a], action = a, ties = 1;
      } else if (probabilities_[a] == best && rng.Uniform(static_cast<uint32_t>(++ties)) == 0) {
        action = a;  // reservoir choice: each tied action with probability 1 / ties
      }
    }
  } else {
    action = traversal::SampleAction(probabilities_, legal, 0.0, rng.UniformDouble());
  }
  LCFR_CHECK_GE(action, 0) << "the policy gave no probability to a legal action";
  return action;
}

double PolicyBot::Probability(const engine::LostCities& game, const engine::State& state,
                              int action) {
  Rng unused(0);
  ActOnState(game, state, unused);  // fills probabilities_
  if (!play_.greedy) return probabilities_[action];
  // Greedy: uniform over the most probable legal actions.
  const uint32_t legal = game.LegalMask(state);
  float best = -1;
  int ties = 0;
  for (uint32_t m = legal; m; m &= m - 1) {
    const float p = probabilities_[std::countr_zero(m)];
    if (p > best) {
      best = p, ties = 1;
    } else if (p == best) {
      ++ties;
    }
  }
  return ((legal >> action) & 1) && probabilities_[action] == best ? 1.0 / ties : 0.0;
}

}  // namespace lcfr::play
