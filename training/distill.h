// Distillation: a smaller network set that imitates a trained Lost Cities model, so that search
// at play time (search/player.h, --rollout-model) can afford more rollouts. The model's
// forward is most of a rollout's cost on a CPU (docs/search.md), and a rollout asks it at every
// decision; a student of a few thousand weights answers those calls several times faster.
//
// Distill: the teacher plays `games` games against itself (its `play` policy, sampled, both
// seats; the states are every decision of them); every network the teacher uses is asked for
// its raw outputs at each state (the mover's advantage network, the strategy network, and the
// value network of the value scheme on the mover's infoset or of ESCHER on the history), and a
// student of the teacher's architecture with hidden_width x hidden_layers is fitted to those
// outputs at the legal actions (squared error, Adam: the trainer's Learner). The games'
// last `holdout_games` are not trained on: the agreement is measured on their states. The
// student is written as a networks file and its configuration (the teacher's, with the student's
// network section) beside it, with their checksums (training/model_files.h), so every command
// that takes --model reads it. Torch-free header.
#ifndef LCFR_TRAINING_DISTILL_H_
#define LCFR_TRAINING_DISTILL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "play/play_policy.h"
#include "training/checkpoint.h"

namespace lcfr::training {

struct DistillConfig {
  int games = 2000;         // self-play games of the teacher; their decisions are the states
  int holdout_games = 200;  // the last games, whose states are held out to measure agreement
  int steps = 4000;         // SGD steps per network (batch and learning rate: the teacher's)
  int hidden_width = 32;    // the student's network: units per hidden layer
  int hidden_layers = 1;    //   and hidden layers (cards: of the colour encoder)
  play::PlayPolicy play{play::PlayPolicy::Source::kCurrent,
                        false};  // the teacher's policy in the games
  int workers = 2;  // threads (games and forwards); training uses the teacher's training.threads
  uint64_t seed = 1;
  absl::Status Validate() const;
};

// How closely the student plays a policy of the teacher's on the held-out states.
struct DistillAgreement {
  double greedy = 0;           // share of states where both policies' most probable action agree
  double total_variation = 0;  // mean over states of half the L1 distance of the distributions
};

struct DistilledNetwork {
  int network = 0;    // traversal/evaluator.h's id
  std::string name;   // "advantage-0", "advantage-1", "strategy", "value"
  int64_t train = 0;  // samples fitted
  double loss = 0;    // the fit's final loss (mean of its last tenth of steps)
  // On the held-out states, at the legal actions: the student's mean squared error against
  // the teacher's outputs, and the variance of the teacher's outputs (1 - mse / variance: R^2).
  double holdout_mse = 0;
  double holdout_variance = 0;
};

struct DistillResult {
  std::string networks_path;  // the student's networks file
  std::string config_path;    // its configuration
  std::string student;        // the student's shape, e.g. "lost-cities (encoding 1): 618 -> ..."
  int64_t teacher_weights = 0;
  int64_t student_weights = 0;
  int64_t train_states = 0;
  int64_t holdout_states = 0;
  std::vector<DistilledNetwork> networks;
  DistillAgreement current;  // regret matching of the mover's advantage network
  DistillAgreement average;  // the strategy network's softmax
  double play_seconds = 0;   // the games and the teacher's outputs
  double fit_seconds = 0;
};

// Distils the Lost Cities model `teacher` into `out` (a path ending in ".pt"; the configuration
// goes to the same path with ".yaml"), the model's files written together
// (training/model_files.h: an earlier model there is replaced whole or kept whole). `log`
// receives progress lines. Errors: a bad config, a teacher of another game, an output path that
// does not end in ".pt" or cannot be written.
absl::StatusOr<DistillResult> Distill(const CheckpointPolicy& teacher, const DistillConfig& config,
                                      const std::string& out,
                                      const std::function<void(const std::string&)>& log = {});

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_DISTILL_H_
