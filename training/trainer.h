// The Deep CFR trainer (Brown et al., 2019) and its run directory. Torch-free header.
//
// Per iteration t, for each player p in turn: run the traversals (fiber workers, batched
// evaluator), offer their samples to the reservoir memories (one advantage memory per player,
// one strategy memory), train p's advantage network (from scratch by default; masked MSE on
// the sampled regrets, each sample weighted by its importance weight, clipped, times t with
// linear weighting), and publish the weights to the workers. Every strategy_every iterations
// the strategy network is trained on the strategy memory; every evaluation.every iterations
// it is evaluated (exact exploitability for toy games, games against bots for Lost Cities); every
// checkpoint_every iterations a checkpoint is written.
//
// Run directory:
//   config.yaml          the resolved configuration
//   metrics.jsonl        one JSON line per iteration (keys in docs/training.md)
//   checkpoints/LATEST   the name of the latest complete checkpoint
//   checkpoints/iter_N/  networks.pt, the memories, state.json, config.yaml
//   summary.json         written at the end
// A checkpoint is written to iter_N.tmp and renamed, then LATEST is replaced atomically: a run
// killed at any moment loses at most the iterations since the last checkpoint and never
// leaves a corrupt one. Resume loads LATEST and continues with the same streams: every random
// stream derives from (seed, iteration, purpose), so a resumed run equals an uninterrupted one.
#ifndef LCFR_TRAINING_TRAINER_H_
#define LCFR_TRAINING_TRAINER_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "training/config.h"
#include "training/exploit.h"
#include "training/fault_plan.h"

namespace lcfr::training {

struct TrainOptions {
  TrainConfig config;
  std::string run_dir;
  bool resume = false;   // continue the run in run_dir from its latest checkpoint
  bool progress = true;  // progress lines on stderr
  int stop_after = 0;    // for tests: stop after this many iterations of this invocation
  // > 0: a time budget for this invocation, in minutes. The run ends (evaluated, checkpointed,
  // summarised) with the last iteration projected to end within it, and its config says that
  // iteration is its last (resume it with --set run.iterations=N to go on). At least one
  // iteration runs.
  double minutes = 0;
  std::optional<FaultPlan> fault;  // for tests: a rank that exits or hangs at a named step
  // An exploit run (training/exploit.h): best responses to this frozen target instead of Deep
  // CFR's self-play. A fresh run loads the target's networks file; a resumed one finds them in
  // its checkpoint.
  std::optional<ExploitTarget> exploit;
};

absl::Status Train(const TrainOptions& options);

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_TRAINER_H_
