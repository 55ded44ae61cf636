#include "training/checkpoint.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "base/files.h"
#include "base/stream_cat.h"
#include "engine/kuhn.h"
#include "engine/leduc.h"
#include "engine/lost_cities.h"
#include "inference/batched_evaluator.h"
#include "inference/networks.h"
#include "training/checksums.h"
#include "training/compose.h"
#include "training/run_directory.h"

namespace lcfr::training {
namespace {

bool IsFile(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

}  // namespace

absl::StatusOr<CheckpointPolicy> LoadCheckpointPolicy(const std::string& path) {
  std::string dir = path;
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    // Say what the path is instead: missing, a file, a FIFO, a device, a link loop.
    const absl::Status what = CheckRegularFile(path);
    return absl::NotFoundError(lcfr::StreamCat(what.ok() ? path + ": is a file" : what.message(),
                                               ", not a checkpoint or run directory"));
  }
  if (!IsFile(dir + "/networks.pt")) {
    if (!IsFile(path + "/checkpoints/LATEST")) {
      return absl::NotFoundError(lcfr::StreamCat(
          path,
          ": neither a checkpoint (no networks.pt) nor a run directory (no checkpoints/LATEST)"));
    }
    const absl::StatusOr<std::string> name = RunDirectory(path).Latest();
    if (!name.ok()) return name.status();
    dir = path + "/checkpoints/" + *name;
  }
  // The files read here match the checkpoint's checksums (training/checksums.h).
  const absl::StatusOr<Checksums> sums = Checksums::Load(dir);
  if (!sums.ok()) return sums.status();
  for (const char* name : {"config.yaml", "networks.pt"}) {
    if (absl::Status s = sums->Verify(name); !s.ok()) return s;
  }
  auto config = LoadConfigFile(dir + "/config.yaml");
  if (!config.ok()) return config.status();
  inference::NetworkShape shape;
  VisitGame(*config, [&shape, &config](const auto& game) {
    shape = NetworkShapeOf(game, config->run.game, config->network);
  });
  shape.config = config->network;
  auto networks = inference::LoadNetworks(dir + "/networks.pt", &shape);
  if (!networks.ok()) return networks.status();
  CheckpointPolicy policy;
  policy.directory = dir;
  policy.config = *config;
  policy.store = std::make_shared<inference::ModelStore>(*networks);
  return policy;
}

absl::StatusOr<CheckpointPolicy> LoadModelPolicy(const std::string& file) {
  if (absl::Status regular = CheckRegularFile(file); !regular.ok()) return regular;
  const size_t slash = file.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : file.substr(0, slash);
  const std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
  std::string config_name = "config.yaml";
  if (base.size() > 3 && base.compare(base.size() - 3, 3, ".pt") == 0) {
    const std::string sibling = base.substr(0, base.size() - 3) + ".yaml";
    if (PathExists(dir + "/" + sibling)) config_name = sibling;
  }
  const std::string config_path = dir + "/" + config_name;
  if (!PathExists(config_path)) {
    return absl::NotFoundError(lcfr::StreamCat(file, ": no configuration beside it (", config_path,
                                               "): the rules and the network "
                                               "it was trained with are read from there"));
  }
  if (absl::Status regular = CheckRegularFile(config_path); !regular.ok()) return regular;
  // Both files must match the checksums beside them (training/model_files.h): a model without
  // them is refused, since a corrupt one would otherwise load and play differently.
  const absl::StatusOr<Checksums> sums = Checksums::Load(dir);
  if (!sums.ok()) return sums.status();
  if (!sums->present()) {
    return absl::DataLossError(
        lcfr::StreamCat(file, ": no ", kChecksumsFile,
                        " beside it, so its files cannot be checked: copy the "
                        "model with its ",
                        kChecksumsFile, " (lcfr export, distill and train write one)"));
  }
  for (const std::string& name : {base, config_name}) {
    if (absl::Status s = sums->Verify(name); !s.ok()) return s;
  }
  auto config = LoadConfigFile(config_path);
  if (!config.ok()) return config.status();
  inference::NetworkShape shape;
  VisitGame(*config, [&shape, &config](const auto& game) {
    shape = NetworkShapeOf(game, config->run.game, config->network);
  });
  auto networks = inference::LoadNetworks(file, &shape);
  if (!networks.ok()) return networks.status();
  CheckpointPolicy policy;
  policy.directory = file;
  policy.config = *config;
  policy.store = std::make_shared<inference::ModelStore>(*networks);
  return policy;
}

absl::StatusOr<std::unique_ptr<CheckpointBot>> CheckpointBot::Load(const std::string& path,
                                                                   play::PlayPolicy play) {
  auto policy = LoadCheckpointPolicy(path);
  if (!policy.ok()) return policy.status();
  return FromPolicy(*std::move(policy), play);
}

absl::StatusOr<std::unique_ptr<CheckpointBot>> CheckpointBot::FromPolicy(CheckpointPolicy policy,
                                                                         play::PlayPolicy play) {
  const std::string& path = policy.directory;
  if (policy.config.run.game != GameId::kLostCities) {
    return absl::InvalidArgumentError(lcfr::StreamCat(
        path, ": a ", GameName(policy.config.run.game), " checkpoint, not a Lost Cities one"));
  }
  inference::InferenceConfig inference;
  inference.precision = inference::Precision::kFp32;
  auto evaluators = MakeEvaluators(policy.store, inference, 1);
  if (!evaluators.ok()) return evaluators.status();
  std::unique_ptr<CheckpointBot> bot(new CheckpointBot());
  bot->directory_ = policy.directory;
  bot->rules_ = policy.config.rules;
  bot->evaluator_ = std::move(evaluators->front());
  bot->client_ = traversal::PolicyClient::Direct(bot->evaluator_.get());
  bot->player_ =
      std::make_unique<play::PolicyBot>(&bot->client_, play, engine::LostCities(bot->rules_));
  return bot;
}

}  // namespace lcfr::training
