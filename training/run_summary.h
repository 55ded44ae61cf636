// What a run reached, at its end: summary.json and the run's last line on stderr. Torch-free.
#ifndef LCFR_TRAINING_RUN_SUMMARY_H_
#define LCFR_TRAINING_RUN_SUMMARY_H_

#include "absl/status/status.h"
#include "training/config.h"
#include "training/run_directory.h"

namespace lcfr::training {

// Writes `dir`'s summary.json: the final and the best evaluation with their iterations, over the
// whole run (metrics.jsonl, so a resumed run counts its earlier part), and which checkpoint is
// the run's model (the last, iteration `last`; the best one's too where it was kept). With
// `command` (the progress lines' speaker: "train", "exploit"), also the run's last line on
// stderr, after a newline unless stderr is a terminal (`tty`). Errors name the file.
absl::Status WriteRunSummary(const RunDirectory& dir, const TrainConfig& config, int world_size,
                             int last, double seconds, const char* command, bool tty);

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_RUN_SUMMARY_H_
