#include "search/experimental/value_cut.h"

#include <bit>
#include <vector>

#include "play/policy_bot.h"

namespace lcfr::search {

double ValueCut::Value(const engine::State& t, int mover, traversal::PolicyClient& policy) {
  const int player = engine::LostCities::CurrentPlayer(t);
  const uint32_t legal = game_.LegalMask(t);
  // sigma: the blueprint's distribution at the player's infoset (its choice is not used).
  play::PolicyBot blueprint(&policy, blueprint_.play, game_);
  Rng unused(0);
  blueprint.ActOnState(game_, t, unused);
  std::vector<float> features(game_.EncodingSize()), q(game_.num_actions());
  if (blueprint_.value == Blueprint::Value::kHistory) {
    engine::View history;
    game_.HistoryView(t, history);
    game_.Encode(history, features);
  } else {
    game_.Encode(t, features);
  }
  policy.Evaluate(traversal::kValueNetwork, traversal::Head::kRaw, features, legal, q);
  double value = 0;
  for (uint32_t m = legal; m; m &= m - 1) {
    const int a = std::countr_zero(m);
    value += blueprint.probabilities()[a] * q[a];
  }
  value *= blueprint_.value_scale;
  return player == mover ? value : -value;
}

}  // namespace lcfr::search
