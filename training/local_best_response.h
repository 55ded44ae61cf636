// A local best response (`lcfr exploit --method lbr`): a lower bound on a network target's
// exploitability without training, after Lisý & Bowling (AAAI 2017). The exploiter is the play-
// time search (search/player.h) set up to exploit the target it knows:
//  - its worlds are weighted by the posterior under the target's known policy: worlds with a past
//    (engine/worlds.h), each weighed by the probability of the target's moves in it under the
//    target's networks (the search's belief, at power 1: Bayes);
//  - every legal action is a candidate, valued by rollouts in which both seats play the target's
//    policy (the exploiter's later decisions follow it too: the "local" in the name), and the best
//    mean (the score objective) is played when it beats the target's own choice by a standard
//    error of their paired difference (the search's rule; with ten or more noisy candidates the
//    largest mean is biased upwards), else the target's choice.
// It plays the target (its networks, its policy, sampled) on paired deals from both seats; its
// mean gain per game, like any player's, is a lower bound on the target's exploitability.
// Torch-free.
#ifndef LCFR_TRAINING_LOCAL_BEST_RESPONSE_H_
#define LCFR_TRAINING_LOCAL_BEST_RESPONSE_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "inference/batched_evaluator.h"
#include "inference/model_store.h"
#include "play/play_policy.h"
#include "training/config.h"
#include "training/iteration_metrics.h"

namespace lcfr::training {

struct LocalBestResponseOptions {
  int rollouts = 500;  // per decision, all candidates together
  int worlds = 200;    // worlds with a past drawn per decision for the posterior
  int games = 200;     // even: paired deals, seats swapped
  uint64_t seed = 1;
  int threads = 2;  // games at once, each on its own thread
};

// The local best response to the target whose networks are in `store`, trained with `config`
// (its rules and value settings), playing `policy` (sampled). `progress(done)` after each game.
// Errors: options out of range (naming the flag), not enough memory for the searches.
absl::StatusOr<ExploitResult> LocalBestResponse(std::shared_ptr<const inference::ModelStore> store,
                                                const TrainConfig& config,
                                                play::PlayPolicy::Source policy,
                                                const inference::InferenceConfig& inference,
                                                const LocalBestResponseOptions& options,
                                                const std::function<void(int)>& progress = {});

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_LOCAL_BEST_RESPONSE_H_
