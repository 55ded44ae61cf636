// lcfr train: a Deep CFR training run from a YAML configuration.
#include <ctime>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "engine/strings.h"
#include "fmt/core.h"
#include "training/config.h"
#include "training/trainer.h"

namespace lcfr::apps {
namespace {

struct TrainCommandOptions {
  std::string config;
  std::vector<std::string> sets;
  std::string run_dir;
  std::string resume;
  bool quiet = false;
};

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
      return kExitBadInput;
    default:
      return kExitFailure;
  }
}

int RunTrain(const TrainCommandOptions& opts) {
  absl::StatusOr<training::TrainConfig> config;
  std::string run_dir = opts.run_dir;
  if (!opts.resume.empty()) {
    if (!opts.config.empty()) {
      PrintError("train", "--resume uses the run's own config.yaml; drop --config");
      return kExitBadInput;
    }
    config = training::LoadConfigFile(opts.resume + "/config.yaml");
    run_dir = opts.resume;
  } else if (!opts.config.empty()) {
    config = training::LoadConfigFile(opts.config);
  } else {
    config = training::ParseConfig(training::EmbeddedDefaultConfig(), "the embedded default");
  }
  if (!config.ok()) {
    PrintError("train", std::string(config.status().message()));
    return kExitBadInput;
  }
  for (const std::string& set : opts.sets) {
    if (absl::Status s = training::ApplyOverride(*config, set); !s.ok()) {
      PrintError("train", std::string(s.message()));
      return kExitBadInput;
    }
  }
  if (absl::Status s = training::Validate(*config); !s.ok()) {
    PrintError("train", std::string(s.message()));
    return kExitBadInput;
  }
  if (run_dir.empty()) {
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", std::localtime(&now));
    run_dir = StrCat("runs/", config->run.game, "-", stamp);
    if (std::system("mkdir -p runs") != 0) {
      PrintError("train", "cannot create runs/");
      return kExitFailure;
    }
  }
  if (!opts.quiet) {
    fmt::print(stderr, "train: {} for {} iterations into {}\n", config->run.game,
               config->run.iterations, run_dir);
  }
  training::TrainOptions options;
  options.config = *config;
  options.run_dir = run_dir;
  options.resume = !opts.resume.empty();
  options.progress = !opts.quiet;
  const absl::Status status = training::Train(options);
  if (!status.ok()) {
    PrintError("train", std::string(status.message()));
    return ExitCodeFor(status);
  }
  if (!opts.quiet) fmt::print(stderr, "train: done; results in {}\n", run_dir);
  fmt::print("{}\n", run_dir);
  return kExitOk;
}

}  // namespace

CommandFn AddTrainCommand(CLI::App& app) {
  auto opts = std::make_shared<TrainCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "train",
      "Train Deep CFR agents. Without --config, the embedded configs/default.yaml (Lost Cities, "
      "CPU, about 10 minutes on 2 cores). Prints the run directory on stdout; progress on "
      "stderr.");
  sub->add_option("--config", opts->config, "YAML configuration (configs/*.yaml)");
  sub->add_option("--set", opts->sets, "override one key: section.key=value (repeatable)");
  sub->add_option("--run-dir", opts->run_dir, "run directory (default: runs/<game>-<date>-<time>)");
  sub->add_option("--resume", opts->resume,
                  "continue the run in this directory from its latest "
                  "checkpoint");
  sub->add_flag("--quiet", opts->quiet, "no progress output");
  return [opts] { return RunTrain(*opts); };
}

}  // namespace lcfr::apps
