// What limits a trained Lost Cities policy (learning.md, "Diagnostics worth having"): the value
// network's accuracy against high-sample rollouts on a fixed set of states, and the variance of
// the regret targets a traversal records there. Torch-free: the networks are asked through
// traversal::Evaluator, every rollout is a fiber of a per-worker FiberBatcher, so their policy
// calls are batched like the traversals'.
#ifndef LCFR_TRAINING_DIAGNOSTICS_H_
#define LCFR_TRAINING_DIAGNOSTICS_H_

#include <cstdint>
#include <span>

#include "absl/status/statusor.h"
#include "engine/lost_cities.h"
#include "training/evaluation.h"
#include "traversal/evaluator.h"

namespace lcfr::training {

struct ValueCheckOptions {
  int states = 200;           // fixed states, each after a self-play prefix of the current policy
  int rollouts = 64;          // rollouts per legal action of each state
  int start_depth_max = 120;  // the prefix has 0..N decisions (uniform), as the traversals' starts
  double payoff_scale = 100;  // payoffs are divided by this (the run's traversal.payoff_scale)
  // The value network reads the history encoding (game.HistoryView: the escher scheme) rather
  // than the mover's view (the value scheme).
  bool history = false;
  uint64_t seed = 1;
  int workers = 2;
  int width = 64;  // states in flight per worker
};

// Figures over every (state, legal action) pair, payoffs in scaled units. The truth at a pair is
// the mean return of `rollouts` continuations of the state itself (the opponent's actual hand,
// the deck reshuffled for each, both players on their current policies, sampled), with common
// random numbers across the state's actions: rollout r of every action shares its deck order
// and its random stream. So for the value scheme, whose network sees only the mover's
// information, part of the unexplained variance is the opponent's hand, not the network.
struct ValueCheckResult {
  int states = 0;
  int64_t pairs = 0;
  int64_t rollouts = 0;  // continuations played
  // 1 - SSE / SST of the network's Q(s, a) against the rollout means.
  double r2_q = 0;
  // The same for the advantages Q(s, a) - sum_b sigma(b) Q(s, b) (what the regrets are built
  // from; sigma the current policy at s), network against rollouts.
  double r2_advantage = 0;
  double rmse_q = 0;
  double rmse_advantage = 0;
  // The share of the rollout means' variance that is their own sampling noise (estimated from
  // the per-pair standard errors): an R^2 near 1 minus it is as good as these rollouts can tell.
  double noise_share_q = 0;
  double noise_share_advantage = 0;
  // Regret-target variance at these states: of one rollout's target y_r(a) - sum_b sigma(b)
  // y_r(b) (an expanded node with sampled continuations, as the value scheme records at its
  // expanded decision), mean over pairs; the value network's targets have none, their error is
  // rmse_advantage^2.
  double sampled_target_variance = 0;
  double mean_sigma_entropy = 0;  // nats; how spread the current policy is at these states
  double seconds = 0;
};

// Measures the value network of `evaluators` (kValueNetwork, raw outputs; the advantage networks
// give the current policy). Deterministic given the options (but for `seconds`).
absl::StatusOr<ValueCheckResult> CheckValueAccuracy(const engine::LostCities& game,
                                                    const traversal::EvaluatorFactory& evaluators,
                                                    const ValueCheckOptions& options);

// The R^2 and RMSE of `predicted` against `truth`, and the share of truth's variance that its
// per-point noise variance `noise` (squared standard errors) explains. Exposed for tests.
struct FitFigures {
  double r2 = 0;
  double rmse = 0;
  double noise_share = 0;
};
FitFigures Fit(std::span<const double> predicted, std::span<const double> truth,
               std::span<const double> noise);

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_DIAGNOSTICS_H_
