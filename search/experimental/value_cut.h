// Rollouts cut short (--rollout-depth D, experimental: lost at 8, level at 16-24 decisions,
// docs/experiments.md; kept for better value networks): after D decisions of the rollout policy a
// rollout that has not ended scores the value network's estimate of the position for the
// searching player, sum_b sigma(b) Q(I, b) at the infoset I of the player to move there (sigma:
// the blueprint's distribution; Q: the value network, on the infoset for the value scheme or the
// history for ESCHER), negated when that player is the opponent. It asks the rollouts' networks.
// Torch-free.
#ifndef LCFR_SEARCH_EXPERIMENTAL_VALUE_CUT_H_
#define LCFR_SEARCH_EXPERIMENTAL_VALUE_CUT_H_

#include "engine/lost_cities.h"
#include "search/config.h"
#include "search/steps.h"

namespace lcfr::search {

class ValueCut : public LeafValue {
 public:
  // `blueprint`: a model with a value network (Blueprint::value not kNone).
  ValueCut(const engine::LostCities& game, const Blueprint& blueprint, int depth)
      : game_(game), blueprint_(blueprint), depth_(depth) {}
  int depth() const override { return depth_; }
  double Value(const engine::State& t, int mover, traversal::PolicyClient& policy) override;

 private:
  engine::LostCities game_;
  Blueprint blueprint_;
  int depth_;
};

}  // namespace lcfr::search

#endif  // LCFR_SEARCH_EXPERIMENTAL_VALUE_CUT_H_
