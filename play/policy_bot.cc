#include "play/policy_bot.h"

#include <algorithm>
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
  const PolicyQuery query = QueryFor(play_, view.player, network_);
  ++decisions_;
  // The strategy network's logits give the average strategy; an advantage network's raw outputs
  // give its player's current regret-matching strategy, and say whether it fell back.
  const std::span<float> answer =
      query.head == traversal::Head::kSoftmax ? std::span<float>(probabilities_) : outputs_;
  policy_->Evaluate(query.network, query.head, features_, legal, answer);
  fallbacks_ += PolicyFromOutputs(query, answer, legal, probabilities_);
  return ChooseAction(probabilities_, legal, play_.greedy, rng);
}

PolicyQuery QueryFor(const PlayPolicy& play, int player, int network) {
  PolicyQuery query;
  query.network = network >= 0 ? network
                  : play.source == PlayPolicy::Source::kAverage
                      ? traversal::kStrategyNetwork
                      : traversal::AdvantageNetwork(player);
  query.head = query.network == traversal::kStrategyNetwork ? traversal::Head::kSoftmax
                                                            : traversal::Head::kRaw;
  return query;
}

bool PolicyFromOutputs(const PolicyQuery& query, std::span<const float> outputs, uint32_t legal,
                       std::span<float> probabilities) {
  if (query.head == traversal::Head::kSoftmax) {
    if (outputs.data() != probabilities.data()) {
      std::copy(outputs.begin(), outputs.end(), probabilities.begin());
    }
    return false;
  }
  bool positive = false;
  for (uint32_t m = legal; m; m &= m - 1) positive |= outputs[std::countr_zero(m)] > 0;
  traversal::ApplyHead(outputs, legal, traversal::Head::kRegretMatching, probabilities);
  return !positive;
}

int ChooseAction(std::span<const float> probabilities, uint32_t legal, bool greedy, Rng& rng) {
  int action = -1;
  if (greedy) {
    float best = -1;
    int ties = 0;
    for (uint32_t m = legal; m; m &= m - 1) {
      const int a = std::countr_zero(m);
      if (probabilities[a] > best) {
        best = probabilities[a], action = a, ties = 1;
      } else if (probabilities[a] == best && rng.Uniform(static_cast<uint32_t>(++ties)) == 0) {
        action = a;  // reservoir choice: each tied action with probability 1 / ties
      }
    }
  } else {
    action = traversal::SampleAction(probabilities, legal, 0.0, rng.UniformDouble());
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
