// Opponent inference: which of several rollout policies the opponent plays, weighed by its moves
// (docs/search.md, "Opponent inference"). At a decision, `worlds` worlds with a past are drawn
// (engine/worlds.h, SampleWorldHistory: deals and moves that show the searching player what it
// saw), and each policy's likelihood of the opponent's moves is averaged over them: each move's
// probability under the policy (the model's distribution, a bot's Bot::Probability) mixed with 5%
// of uniform over the legal actions. With a uniform prior, a policy's posterior is its mean
// likelihood over their sum; each round of rollouts then plays one policy, drawn by the posterior
// (search/resampling.h). Torch-free.
#ifndef LCFR_SEARCH_OPPONENT_INFERENCE_H_
#define LCFR_SEARCH_OPPONENT_INFERENCE_H_

#include <cstdint>
#include <vector>

#include "engine/lost_cities.h"
#include "engine/worlds.h"
#include "search/report.h"
#include "search/workers.h"

namespace lcfr::search {

// The share of uniform play mixed into a modelled move's probability: a move the model would
// never make costs a world at most a factor of about 20 x its legal actions.
inline constexpr double kUniformShare = 0.05;

class OpponentInference {
 public:
  // `policies`: the opponent's rollout policies (their bots are the workers' opponent_bots);
  // `worlds`: worlds drawn per decision.
  OpponentInference(const engine::LostCities& game, std::vector<RolloutSide> policies, int worlds);

  // The posterior of the policies for a decision in `state` whose past the mover saw as `seen`
  // (`knows_past`: one move per decision). The prior when the past is not known or no world was
  // drawn before `deadline`: returns false. The worlds run on `workers`' model batchers; the
  // decision counts into `report`.
  bool Infer(const engine::State& state, const std::vector<engine::SeenMove>& seen, bool knows_past,
             uint64_t seed, Clock::time_point deadline, Workers& workers,
             std::vector<double>& posterior, SearchReport& report) const;
  int size() const { return static_cast<int>(policies_.size()); }

 private:
  engine::LostCities game_;
  std::vector<RolloutSide> policies_;
  int worlds_;
};

}  // namespace lcfr::search

#endif  // LCFR_SEARCH_OPPONENT_INFERENCE_H_
