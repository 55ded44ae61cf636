// A training run's directory: its paths, the checkpoint commit sequence, retention and the
// metrics file's truncation on resume. Plain POSIX file calls (base/files.h), no shell.
// Torch-free; the trainer writes a checkpoint's contents, this class names and publishes it.
//
//   config.yaml          the resolved configuration
//   metrics.jsonl        one JSON line per iteration (docs/training.md)
//   summary.json         written at the end
//   checkpoints/LATEST   the name of the latest complete checkpoint
//   checkpoints/iter_N/  networks.pt, the memories' segments (*.mem; training/memory.h),
//                        state.json, config.yaml, metrics.json (the iteration's line)
//
// Commit sequence of a checkpoint: PrepareStaging (iter_N.tmp, empty), the trainer writes into
// it, Publish renames it to iter_N, replaces LATEST atomically, then applies Retain. A kill at
// any step leaves LATEST naming a complete checkpoint; Retain is idempotent, so a resume that
// calls it again removes whatever an interrupted Publish left behind.
//
// Retention: the latest checkpoint is kept whole; of the others, those of every keep_every-th
// iteration are kept without their memories (they still serve eval, play and agent) and the rest
// are removed, with any stale iter_N.tmp. keep_every = 0 keeps only the latest.
//
// One per process; only rank 0 publishes, retains and truncates (training/distributed.h).
#ifndef LCFR_TRAINING_RUN_DIRECTORY_H_
#define LCFR_TRAINING_RUN_DIRECTORY_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace lcfr::training {

// A checkpoint's state.json, validated: an object with an integer "iteration" equal to the
// checkpoint's (from its directory name), a string "game", and optionally a boolean
// "strategy_trained" (default false) and an integer "world_size" >= 1 (default 1). Errors name
// the file and the key.
struct CheckpointState {
  int iteration = 0;
  std::string game;
  bool strategy_trained = false;
  int world_size = 1;

  static absl::StatusOr<CheckpointState> Parse(const std::string& path, const std::string& text,
                                               int expected_iteration);
};

class RunDirectory {
 public:
  // `rank` and `world` name memory shards: "advantage0.s0.mem" (segment 0), or
  // "advantage0.rank1.s0.mem" for rank 1 of several.
  explicit RunDirectory(std::string root, int rank = 0, int world = 1);

  const std::string& root() const { return root_; }
  std::string ConfigPath() const { return root_ + "/config.yaml"; }
  std::string MetricsPath() const { return root_ + "/metrics.jsonl"; }
  std::string SummaryPath() const { return root_ + "/summary.json"; }
  std::string CheckpointsPath() const { return root_ + "/checkpoints"; }
  // "iter_000012"; the iteration of such a name (-1 for any other name).
  static std::string CheckpointName(int iteration);
  static int IterationOf(std::string_view name);
  std::string CheckpointPath(int iteration) const;
  std::string StagingPath(int iteration) const;  // iter_N.tmp
  // Segment `segment` of a memory's shard in checkpoint directory `dir` (SegmentChain).
  std::string ShardPath(const std::string& dir, std::string_view memory, int segment = 0) const;

  // Creates the directory and checkpoints/. A fresh run (resume false) refuses a directory that
  // already holds a run (FailedPrecondition, naming --resume).
  // A fresh run also refuses a directory that is not empty and is not a run that never reached
  // its first checkpoint (the user's files are never overwritten), and starts such a run over.
  absl::Status Create(bool resume) const;
  // Removes what a fresh run wrote before its first checkpoint (config.yaml, metrics.jsonl,
  // summary.json, checkpoints/), then the directory itself if it is empty.
  absl::Status RemoveUnstarted() const;
  // The checkpoint LATEST names (NotFound when there is none).
  absl::StatusOr<std::string> Latest() const;
  // Empties checkpoints/iter_N.tmp for the trainer to write into.
  absl::Status PrepareStaging(int iteration) const;
  // Moves the staged checkpoint into place, replaces LATEST, then Retain(keep_every).
  absl::Status Publish(int iteration, int keep_every) const;
  // Applies the retention rule to every checkpoint but the latest (see above), and removes
  // staging directories and the temporaries of interrupted atomic writes. Idempotent.
  absl::Status Retain(int keep_every) const;
  // Keeps the metrics lines of iterations <= `iteration` (a line cut by a kill ends the file).
  // When no kept line is of `iteration` itself and `committed_line` (that iteration's line, as
  // its checkpoint committed it) is given, appends it: the line a kill right after publishing
  // kept out of metrics.jsonl.
  absl::Status TruncateMetrics(int iteration, const std::string& committed_line = "") const;

 private:
  // Removes the temporaries that a killed atomic write of config.yaml, metrics.jsonl,
  // summary.json or checkpoints/LATEST left (base/atomic_file.h).
  absl::Status RemoveTemporaries() const;

  std::string root_;
  int rank_;
  int world_;
};

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_RUN_DIRECTORY_H_
