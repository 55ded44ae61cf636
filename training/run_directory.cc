#include "training/run_directory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

#include "base/atomic_file.h"
#include "base/error_text.h"
#include "base/files.h"
#include "base/json_bounds.h"
#include "base/stream_cat.h"
#include "nlohmann/json.hpp"

namespace lcfr::training {
namespace {

constexpr std::string_view kPrefix = "iter_";
constexpr std::string_view kStaging = ".tmp";

bool HasStagingSuffix(std::string_view name) {
  return name.size() > kStaging.size() &&
         name.compare(name.size() - kStaging.size(), kStaging.size(), kStaging) == 0;
}

}  // namespace

RunDirectory::RunDirectory(std::string root, int rank, int world)
    : root_(std::move(root)), rank_(rank), world_(world) {}

std::string RunDirectory::CheckpointName(int iteration) {
  char name[32];
  std::snprintf(name, sizeof(name), "iter_%06d", iteration);
  return name;
}

int RunDirectory::IterationOf(std::string_view name) {
  if (name.substr(0, kPrefix.size()) != kPrefix || name.size() == kPrefix.size()) return -1;
  int value = 0;
  for (char c : name.substr(kPrefix.size())) {
    if (c < '0' || c > '9' || value > 100000000) return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::string RunDirectory::CheckpointPath(int iteration) const {
  return CheckpointsPath() + "/" + CheckpointName(iteration);
}

std::string RunDirectory::StagingPath(int iteration) const {
  return CheckpointPath(iteration) + std::string(kStaging);
}

std::string RunDirectory::ShardPath(const std::string& dir, std::string_view memory,
                                    int segment) const {
  return world_ == 1 ? StreamCat(dir, "/", memory, ".s", segment, ".mem")
                     : StreamCat(dir, "/", memory, ".rank", rank_, ".s", segment, ".mem");
}

absl::Status RunDirectory::Create(bool resume) const {
  if (!resume && PathExists(root_)) {
    if (PathExists(CheckpointsPath() + "/LATEST")) {
      return absl::FailedPreconditionError(
          StreamCat(root_, " already holds a run; use --resume ", root_, " or another --run-dir"));
    }
    absl::StatusOr<std::vector<std::string>> names = ListDirectory(root_);
    if (!names.ok()) {
      return absl::FailedPreconditionError(
          StreamCat(root_, " exists and is not a directory; choose another --run-dir"));
    }
    // Empty, or what a fresh run writes before its first checkpoint (a run killed then): config,
    // an empty metrics.jsonl, checkpoints/ with nothing but staging directories. Anything else
    // may be the user's.
    bool ours = true;
    for (const std::string& name : *names) {
      if (name == "config.yaml" || IsTemporaryOf(name, "config.yaml") ||
          IsTemporaryOf(name, "metrics.jsonl")) {
        continue;
      }
      if (name == "metrics.jsonl") {
        const absl::StatusOr<std::string> metrics = ReadFileToString(MetricsPath());
        ours &= metrics.ok() && metrics->empty();
        continue;
      }
      if (name == "checkpoints") {
        const absl::StatusOr<std::vector<std::string>> checkpoints =
            ListDirectory(CheckpointsPath());
        ours &= checkpoints.ok();
        if (checkpoints.ok()) {
          for (const std::string& c : *checkpoints) {
            ours &= HasStagingSuffix(c) &&
                    IterationOf(std::string_view(c).substr(0, c.size() - kStaging.size())) >= 0;
          }
        }
        continue;
      }
      ours = false;
    }
    // A never-started run always has checkpoints/ (made first, below).
    ours &=
        names->empty() || std::find(names->begin(), names->end(), "checkpoints") != names->end();
    if (!ours) {
      return absl::FailedPreconditionError(
          StreamCat(root_,
                    " is not empty and holds no run of lcfr (no checkpoints/LATEST); choose a new "
                    "--run-dir, or --resume a run directory"));
    }
    if (absl::Status s = RemoveUnstarted(); !s.ok()) return s;
  }
  return MakeDirectories(CheckpointsPath());
}

absl::Status RunDirectory::RemoveUnstarted() const {
  for (const std::string& path : {ConfigPath(), MetricsPath(), SummaryPath()}) {
    if (absl::Status s = RemoveTree(path); !s.ok()) return s;  // a missing file is fine
  }
  if (absl::Status s = RemoveTemporaries(); !s.ok()) return s;
  if (absl::Status s = RemoveTree(CheckpointsPath()); !s.ok()) return s;
  (void)rmdir(root_.c_str());  // fails, harmlessly, when something else is (or was) there
  return absl::OkStatus();
}

absl::Status RunDirectory::RemoveTemporaries() const {
  // base/atomic_file.h names them FILE.tmp.<pid>.<n>, beside FILE.
  for (const auto& [dir, base] :
       {std::pair{root_, "config.yaml"}, std::pair{root_, "metrics.jsonl"},
        std::pair{root_, "summary.json"}, std::pair{CheckpointsPath(), "LATEST"}}) {
    const std::string prefix = StreamCat(base, ".tmp.");
    if (absl::StatusOr<int> removed = RemoveFiles(dir, prefix, "");
        !removed.ok() && PathExists(dir)) {
      return removed.status();
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> RunDirectory::Latest() const {
  absl::StatusOr<std::string> text = ReadFileToString(CheckpointsPath() + "/LATEST");
  if (!text.ok()) {
    return absl::NotFoundError(StreamCat(root_, ": no checkpoint to resume from (",
                                         CheckpointsPath(), "/LATEST is missing)"));
  }
  std::string name = *text;
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  if (name.empty()) {
    return absl::InvalidArgumentError(StreamCat(
        CheckpointsPath(), "/LATEST is empty: it should name a checkpoint (iter_NNNNNN)"));
  }
  if (IterationOf(name) < 0) {
    return absl::InvalidArgumentError(StreamCat(CheckpointsPath(), "/LATEST: '", Printable(name),
                                                "' is not a checkpoint name (iter_NNNNNN)"));
  }
  if (!PathExists(CheckpointsPath() + "/" + name)) {
    return absl::NotFoundError(
        StreamCat(CheckpointsPath(), "/LATEST names ", name, ", which does not exist"));
  }
  return name;
}

absl::Status RunDirectory::PrepareStaging(int iteration) const {
  if (absl::Status s = RemoveTree(StagingPath(iteration)); !s.ok()) return s;
  return MakeDirectories(StagingPath(iteration));
}

absl::Status RunDirectory::Publish(int iteration, int keep_every) const {
  const std::string final_path = CheckpointPath(iteration);
  if (absl::Status s = RemoveTree(final_path); !s.ok()) return s;
  if (std::rename(StagingPath(iteration).c_str(), final_path.c_str()) != 0) {
    return absl::InternalError(StreamCat("cannot rename ", StagingPath(iteration)));
  }
  if (absl::Status s =
          WriteFileAtomically(CheckpointsPath() + "/LATEST", CheckpointName(iteration));
      !s.ok()) {
    return s;
  }
  return Retain(keep_every);
}

absl::Status RunDirectory::Retain(int keep_every) const {
  absl::StatusOr<std::string> latest = Latest();
  if (!latest.ok()) return absl::OkStatus();  // nothing published yet: nothing to retain
  if (absl::Status s = RemoveTemporaries(); !s.ok()) return s;
  absl::StatusOr<std::vector<std::string>> names = ListDirectory(CheckpointsPath());
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    if (name == *latest) continue;
    const std::string path = CheckpointsPath() + "/" + name;
    const bool staging = HasStagingSuffix(name);
    const int t = IterationOf(staging ? name.substr(0, name.size() - kStaging.size()) : name);
    if (t < 0) continue;  // not ours
    if (staging || keep_every == 0 || t % keep_every != 0) {
      if (absl::Status s = RemoveTree(path); !s.ok()) return s;
    } else if (absl::StatusOr<int> removed = RemoveFiles(path, "", ".mem"); !removed.ok()) {
      return removed.status();
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<CheckpointState> CheckpointState::Parse(const std::string& path,
                                                       const std::string& text,
                                                       int expected_iteration) {
  auto invalid = [&path](auto&&... parts) {
    return absl::InvalidArgumentError(StreamCat(path, ": ", parts...));
  };
  if (absl::Status s = CheckJsonBounds(text); !s.ok())
    return invalid("not JSON (", s.message(), ")");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    return invalid("not JSON (", e.what(), ")");
  }
  if (!j.is_object()) return invalid("expected a JSON object, got ", j.type_name());
  CheckpointState state;
  if (!j.contains("iteration") || !j["iteration"].is_number_integer()) {
    return invalid("\"iteration\" must be an integer");
  }
  const long long iteration = SaturatedInteger(j["iteration"]);
  if (iteration != expected_iteration) {
    return invalid("\"iteration\" is ", j["iteration"].dump(),
                   ", but the checkpoint is of iteration ", expected_iteration);
  }
  state.iteration = static_cast<int>(iteration);
  if (!j.contains("game") || !j["game"].is_string()) return invalid("\"game\" must be a string");
  state.game = j["game"].get<std::string>();
  if (j.contains("strategy_trained")) {
    if (!j["strategy_trained"].is_boolean()) {
      return invalid("\"strategy_trained\" must be true or false");
    }
    state.strategy_trained = j["strategy_trained"].get<bool>();
  }
  if (j.contains("world_size")) {
    if (!j["world_size"].is_number_integer() || SaturatedInteger(j["world_size"]) < 1 ||
        SaturatedInteger(j["world_size"]) > 1 << 20) {
      return invalid("\"world_size\" must be a positive integer");
    }
    state.world_size = j["world_size"].get<int>();
  }
  return state;
}

absl::Status RunDirectory::TruncateMetrics(int iteration, const std::string& committed_line) const {
  absl::StatusOr<std::string> metrics = ReadFileToString(MetricsPath());
  std::string kept;
  bool has_iteration = false;
  if (metrics.ok()) {
    std::stringstream in(*metrics);
    for (std::string row; std::getline(in, row);) {
      if (row.empty()) continue;
      try {
        if (!CheckJsonBounds(row).ok()) break;
        const int row_iteration = nlohmann::json::parse(row).value("iteration", 0);
        if (row_iteration <= iteration) kept += row + "\n";
        has_iteration |= row_iteration == iteration;
      } catch (const std::exception&) {
        break;  // a line cut by the kill that stopped the run
      }
    }
  }
  if (!has_iteration && !committed_line.empty()) kept += committed_line + "\n";
  return WriteFileAtomically(MetricsPath(), kept);
}

}  // namespace lcfr::training
