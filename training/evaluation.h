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
#include "play/play_policy.h"
#include "play/policy_bot.h"
#include "training/config.h"
#include "training/iteration_metrics.h"
#include "traversal/evaluator.h"
#include "traversal/fiber_batcher.h"

namespace lcfr::training {

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
                                                    play::PlayPolicy play = {}, int network = -1);

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
