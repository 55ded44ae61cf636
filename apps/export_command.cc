// lcfr export: a checkpoint's networks and configuration as a model (NAME.pt, NAME.yaml and their
// checksums beside them, training/model_files.h), for --model and for shipping.
#include <string>

#include "apps/commands.h"
#include "engine/files.h"
#include "engine/strings.h"
#include "fmt/core.h"
#include "training/checkpoint.h"
#include "training/model_files.h"

namespace lcfr::apps {
namespace {

struct ExportOptions {
  std::string checkpoint;
  std::string out;
};

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
  if (absl::Status written = training::WriteModelFiles(*files, *networks, *config); !written.ok()) {
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
  return [opts] { return RunExport(*opts); };
}

}  // namespace lcfr::apps
