// Evaluating a strategy network (torch-free: through traversal::Evaluator):
// - Lost Cities: seat-alternating games against a bot on PlayMatch's paired deals, many games
//   at once as fibers so that the network's decisions are batched (one forward per batch);
// - toy games: exact exploitability of the network's policy (engine/exact.h).
#ifndef LCFR_TRAINING_EVALUATION_H_
#define LCFR_TRAINING_EVALUATION_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "engine/bots.h"
#include "engine/lost_cities.h"
#include "engine/match.h"
#include "inference/batched_evaluator.h"
#include "inference/model_store.h"
#include "training/config.h"
#include "training/iteration_metrics.h"
#include "traversal/evaluator.h"
#include "traversal/fiber_batcher.h"

namespace lcfr::training {

// A Lost Cities bot that plays a network's strategy: it samples its action from the policy's
// answer. With a fiber PolicyClient, Act suspends the fiber until the batch is served.
class PolicyBot : public engine::Bot {
 public:
  PolicyBot(traversal::PolicyClient* policy, int network, const engine::LostCities& game);
  int Act(const engine::LostCities& game, const engine::View& view, engine::Rng& rng) override;
  std::string Name() const override { return "network"; }

 private:
  traversal::PolicyClient* policy_;
  int network_;
  std::vector<float> features_;
  std::vector<float> probabilities_;
};

using EvaluatorFactory = std::function<std::unique_ptr<traversal::Evaluator>(int worker)>;

// `games` games of a network's policy (as A; by default the strategy network) against `opponent`
// (as B), PlayMatch's deals and seats, `workers` threads with `width` games in flight each.
// Deterministic given the seed.
absl::StatusOr<engine::MatchResult> PlayNetworkMatch(const engine::LostCities& game,
                                                     const EvaluatorFactory& evaluators,
                                                     const std::string& opponent, int games,
                                                     uint64_t seed, int workers, int width = 64,
                                                     int network = traversal::kStrategyNetwork);

// The trainer's evaluation of Lost Cities: `config.games` games of the store's strategy network
// against each of `config.opponents` in turn, on `config.workers` threads whose evaluators are
// built by MakeEvaluators (training/compose.h) from `inference` (device resolved). The seed of
// every match is `seed`. Errors name the opponent.
absl::StatusOr<std::vector<BotResult>> PlayEvaluationMatches(
    const engine::LostCities& game, std::shared_ptr<const inference::ModelStore> store,
    const inference::InferenceConfig& inference, const EvaluationConfig& config, uint64_t seed);

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_EVALUATION_H_
