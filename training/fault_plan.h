// Fault injection for the tests of failures (tests/distributed, the kill tests): a plan names a
// rank, an iteration and a step of the iteration's commit sequence, and what that rank does
// when it gets there: exit at once (like a kill -9: no cleanup, exit status 3), hang (stop
// answering, like a stopped machine) or kill -9 the --nproc launcher. The plan is parsed once at
// the composition root (`lcfr train` reads LCFR_TEST_FAULT) and handed to the trainer in
// TrainOptions; without one (every real run) Reach does nothing. Torch-free.
//
//   LCFR_TEST_FAULT=ACTION:RANK:ITERATION[:STEP]
//     ACTION exit | hang | kill-launcher (SIGKILL to the --nproc launcher, which takes every
//     rank with it); STEP (default start):
//       start      the iteration begins
//       staged     its checkpoint is written in iter_N.tmp, not yet published
//       published  LATEST names its checkpoint, the metrics line is not written yet
//       metrics    its metrics line is written
#ifndef LCFR_TRAINING_FAULT_PLAN_H_
#define LCFR_TRAINING_FAULT_PLAN_H_

#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/fields.h"

namespace lcfr::training {

enum class FaultStep { kStart = 0, kStaged = 1, kPublished = 2, kMetrics = 3 };
inline constexpr EnumName kFaultStepNames[] = {
    {"start", 0}, {"staged", 1}, {"published", 2}, {"metrics", 3}};

struct FaultPlan {
  enum class Action { kExit = 0, kHang = 1, kKillLauncher = 2 };
  Action action = Action::kExit;
  int rank = 0;
  int iteration = 0;
  FaultStep step = FaultStep::kStart;

  // Parses ACTION:RANK:ITERATION[:STEP]; errors say what is wrong with the spec.
  static absl::StatusOr<FaultPlan> Parse(std::string_view spec);
};

// Carries out `plan` if this is its rank, iteration and step (prints one line to stderr first).
void Reach(const std::optional<FaultPlan>& plan, FaultStep step, int rank, int iteration);

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_FAULT_PLAN_H_
