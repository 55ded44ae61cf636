// lcfr export: a checkpoint's networks and configuration as a model (NAME.pt, NAME.yaml and their
// checksums beside them, training/model_files.h), for --model and for shipping.
#include <string>
#include <vector>

#include "apps/commands.h"
#include "base/files.h"
#include "base/strings.h"
#include "fmt/core.h"
#include "training/checkpoint.h"
#include "training/config.h"
#include "training/model_files.h"

namespace lcfr::apps {
namespace {

struct ExportOptions {
  std::string checkpoint;
  std::string out;
  std::vector<std::string> card;  // --set play.KEY=VALUE: the model card's entries
};

// The configuration the model is written with: the checkpoint's own bytes, or with --set its
// play card changed (only play.*: the rest describes how the networks were trained).
absl::StatusOr<std::string> ModelConfig(const training::CheckpointPolicy& policy,
                                        const std::string& bytes,
                                        const std::vector<std::string>& card) {
  if (card.empty()) return bytes;
  training::TrainConfig config = policy.config;
  for (const std::string& assignment : card) {
    if (assignment.rfind("play.", 0) != 0) {
      return absl::InvalidArgumentError(
          StrCat("--set ", assignment, ": only the model card's play.* keys can be set (the rest ",
                 "says how the networks were trained)"));
    }
    if (absl::Status set = training::ApplyOverride(config, assignment); !set.ok()) return set;
  }
  if (absl::Status valid = training::Validate(config); !valid.ok()) {
    return absl::InvalidArgumentError(StrCat("--set: ", valid.message()));
  }
  return training::DumpConfig(config);
}

int RunExport(const ExportOptions& opts) {
  const absl::StatusOr<training::ModelFiles> files = training::ModelFilesOf(opts.out, "--out");
  if (!files.ok()) {
    PrintError("export", std::string(files.status().message()));
    return kExitBadInput;
  }
  if (absl::Status dir = CheckDirectory(files->directory); !dir.ok()) {
    PrintError("export", StrCat("--out: ", dir.message()));
    return kExitBadInput;
  }
  // Loaded whole, so that what is exported is checked as every loader checks it (checksums,
  // the networks' shape against the configuration, finite weights).
  const absl::StatusOr<training::CheckpointPolicy> policy =
      training::LoadCheckpointPolicy(opts.checkpoint);
  if (!policy.ok()) {
    PrintError("export", std::string(policy.status().message()));
    return kExitBadInput;
  }
  const absl::StatusOr<std::string> networks = ReadFileToString(policy->directory + "/networks.pt");
  const absl::StatusOr<std::string> config = ReadFileToString(policy->directory + "/config.yaml");
  for (const absl::Status& read : {networks.status(), config.status()}) {
    if (!read.ok()) {
      PrintError("export", std::string(read.message()));
      return kExitBadInput;
    }
  }
  const absl::StatusOr<std::string> model_config = ModelConfig(*policy, *config, opts.card);
  if (!model_config.ok()) {
    PrintError("export", std::string(model_config.status().message()));
    return kExitBadInput;
  }
  if (absl::Status written = training::WriteModelFiles(*files, *networks, *model_config);
      !written.ok()) {
    PrintError("export", std::string(written.message()));
    return absl::IsFailedPrecondition(written) ? kExitBadInput : kExitFailure;
  }
  fmt::print("{} (networks of {}), {} and their checksums in {}\n", files->networks,
             policy->directory, files->config, files->checksums);
  return kExitOk;
}

}  // namespace

CommandFn AddExportCommand(CLI::App& app) {
  auto opts = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Write a checkpoint's networks as a model: FILE.pt, its configuration FILE.yaml beside it, "
      "and both in checksums.json there, replaced together (what --model reads and checks).");
  cmd->add_option("--checkpoint", opts->checkpoint, "a checkpoint or a run directory (its latest)")
      ->required();
  cmd->add_option("--out", opts->out, "the model's networks file, ending in .pt")->required();
  cmd->add_option(
      "--set", opts->card,
      "play.KEY=VALUE: an entry of the model's card, how it plays by default "
      "(play.policy, play.search, play.rollout_model, play.rollouts; models/README.md)");
  return [opts] { return RunExport(*opts); };
}

}  // namespace lcfr::apps
