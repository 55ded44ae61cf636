#include "training/run_summary.h"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

#include "base/atomic_file.h"
#include "base/stream_cat.h"
#include "nlohmann/json.hpp"
#include "training/iteration_metrics.h"

namespace lcfr::training {

absl::Status WriteRunSummary(const RunDirectory& dir, const TrainConfig& config, int world_size,
                             int last, double seconds, const char* command, bool tty) {
  absl::StatusOr<std::vector<IterationMetrics>> lines = ReadMetricsFile(dir.MetricsPath());
  if (!lines.ok()) return lines.status();
  RunOutcome outcome;
  for (const IterationMetrics& m : *lines) outcome.Add(m);
  auto point_json = [](const std::optional<RunOutcome::Point>& point) {
    if (!point) return nlohmann::ordered_json();
    nlohmann::ordered_json j = {{"iteration", point->iteration}};
    j.update(nlohmann::ordered_json::parse(point->eval_json));
    return j;
  };
  nlohmann::ordered_json summary;
  summary["game"] = GameName(config.run.game);
  summary["iterations"] = last;
  summary["world_size"] = world_size;
  summary["seconds_this_invocation"] = seconds;
  summary["measure"] = outcome.measure();
  summary["final_evaluation"] = point_json(outcome.final_point());
  summary["best_evaluation"] = point_json(outcome.best_point());
  summary["checkpoint"] = dir.CheckpointPath(last);
  std::string best_checkpoint;
  if (outcome.best_point()) {
    const std::string path = dir.CheckpointPath(outcome.best_point()->iteration);
    std::error_code error;  // unreadable counts as not kept
    if (std::filesystem::exists(path + "/networks.pt", error)) best_checkpoint = path;
  }
  summary["best_checkpoint"] =
      best_checkpoint.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(best_checkpoint);
  if (absl::Status s = WriteFileAtomically(dir.SummaryPath(), summary.dump(2) + "\n"); !s.ok()) {
    return s;
  }
  if (command != nullptr) {
    if (!tty) std::fprintf(stderr, "\n");
    std::string where =
        StreamCat("the run's model is its last checkpoint, ", dir.CheckpointPath(last));
    if (outcome.best_point() && outcome.best_point()->iteration != last) {
      where += best_checkpoint.empty()
                   ? "; the best iteration's checkpoint was not kept (run.keep_every)"
                   : StreamCat("; the best iteration's is ", best_checkpoint);
    }
    std::fprintf(stderr, "%s: %s; %s\n", command, outcome.Line().c_str(), where.c_str());
  }
  return absl::OkStatus();
}

}  // namespace lcfr::training
