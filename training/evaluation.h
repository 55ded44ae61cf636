// Evaluating a strategy network (torch-free: through traversal::Evaluator):
// - Lost Cities: seat-alternating games against a bot on PlayMatch's paired deals, many games
//   at once as fibers so that the network's decisions are batched (one forward per batch);
// - toy games: exact exploitability of the network's policy (engine/exact.h).
#ifndef LCFR_TRAINING_EVALUATION_H_
#define LCFR_TRAINING_EVALUATION_H_

#include <functional>
#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "engine/bots.h"
#include "engine/lost_cities.h"
#include "engine/match.h"
#include "inference/batched_evaluator.h"
#include "inference/model_store.h"
#include "training/config.h"
#include "training/iteration_metrics.h"
#include "training/play_policy.h"
#include "traversal/evaluator.h"
#include "traversal/fiber_batcher.h"

namespace lcfr::training {

// Raises the legal entries of `probabilities` to the power 1 / temperature and renormalises them
// (temperature > 0; 1 leaves them as they are, below 1 sharpens, above 1 flattens; a zero stays
// zero). A distribution without mass on a legal action is left as it is.
void ApplyTemperature(std::span<float> probabilities, uint32_t legal, double temperature);

// A Lost Cities bot that plays a network's policy. With a fiber PolicyClient, Act suspends the
// fiber until the batch is served. `network` >= 0 names the network outright (lcfr eval
// --network); otherwise the policy's source picks it.
class PolicyBot : public engine::Bot {
 public:
  // `network`: the network to ask (-1: the play policy's); `model`: the network set
  // (traversal::PolicyRequest::model; 0 but for the search's opponent rollout model).
  // `temperature`: sampled play draws from the policy under ApplyTemperature (the search's
  // --rollout-temperature); greedy play ignores it.
  PolicyBot(traversal::PolicyClient* policy, PlayPolicy play, const engine::LostCities& game,
            int network = -1, int model = 0, double temperature = 1.0);
  int Act(const engine::LostCities& game, const engine::View& view, engine::Rng& rng) override;
  // The distribution Act plays from: the policy's (under the temperature), or with greedy play
  // uniform over its most probable legal actions (one policy call).
  double Probability(const engine::LostCities& game, const engine::State& state,
                     int action) override;
  std::string Name() const override { return "network"; }
  // Decisions taken, and of those, how many fell back to the argmax because no legal action had
  // a positive advantage (regret-matching policies only).
  int64_t decisions() const { return decisions_; }
  int64_t fallbacks() const { return fallbacks_; }
  // The distribution the last Act played from (num_actions entries, 0 at illegal actions; under
  // the temperature when sampled).
  std::span<const float> probabilities() const { return probabilities_; }

 private:
  traversal::PolicyClient* policy_;
  PlayPolicy play_;
  int network_;
  int model_;
  double temperature_;
  std::vector<float> features_;
  std::vector<float> outputs_;
  std::vector<float> probabilities_;
  int64_t decisions_ = 0;
  int64_t fallbacks_ = 0;
};

// A network's match: the games, and its regret-matching fallbacks.
struct NetworkMatchResult {
  engine::MatchResult match;
  int64_t decisions = 0;
  int64_t fallbacks = 0;
  double fallback_rate() const {
    return decisions ? static_cast<double>(fallbacks) / static_cast<double>(decisions) : 0.0;
  }
};

using EvaluatorFactory = std::function<std::unique_ptr<traversal::Evaluator>(int worker)>;

// Runs body(t) for t in [0, threads): t = 0 on the calling thread, the others on threads of
// their own; returns when all have finished and then rethrows the first exception (by t).
void RunOnThreads(int threads, const std::function<void(int)>& body);

// Runs `tasks` tasks as fibers on `workers` threads (contiguous index ranges), each thread with
// its own evaluator and a FiberBatcher of `width` fibers with loop-sized stacks: task(i, policy)
// for every i in [0, tasks). The first worker's exception is rethrown after all have joined.
void RunFiberTasks(const EvaluatorFactory& evaluators, int64_t tasks, int workers, int width,
                   const std::function<void(int64_t, traversal::PolicyClient&)>& task);

// `games` games of a network's policy (as A) against `opponent` (as B), PlayMatch's deals and
// seats, `workers` threads with `width` games in flight each. Deterministic given the seed.
absl::StatusOr<NetworkMatchResult> PlayNetworkMatch(const engine::LostCities& game,
                                                    const EvaluatorFactory& evaluators,
                                                    const std::string& opponent, int games,
                                                    uint64_t seed, int workers, int width = 64,
                                                    PlayPolicy play = {}, int network = -1);

// A match's figures as metrics.jsonl reports them (policy "" = the default keys).
BotResult ToBotResult(const std::string& opponent, const std::string& policy,
                      const NetworkMatchResult& result);

// The trainer's evaluation of Lost Cities: for each of `config.policies`, `config.games` games
// against each of `config.opponents`, on `config.workers` threads whose evaluators are built by
// MakeEvaluators (training/compose.h) from `inference` (device resolved). The first policy's
// results also go under the default keys (policy ""). The seed of every match is `seed`, so all
// policies play the same deals. Errors name the opponent.
absl::StatusOr<std::vector<BotResult>> PlayEvaluationMatches(
    const engine::LostCities& game, std::shared_ptr<const inference::ModelStore> store,
    const inference::InferenceConfig& inference, const EvaluationConfig& config, uint64_t seed);

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_EVALUATION_H_
