#include "training/checkpoint.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "engine/kuhn.h"
#include "engine/leduc.h"
#include "engine/lost_cities.h"
#include "engine/stream_cat.h"
#include "inference/batched_evaluator.h"
#include "inference/networks.h"

namespace lcfr::training {
namespace {

bool IsFile(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

}  // namespace

absl::StatusOr<CheckpointPolicy> LoadCheckpointPolicy(const std::string& path) {
  std::string dir = path;
  if (!IsFile(dir + "/networks.pt")) {
    std::ifstream latest(path + "/checkpoints/LATEST");
    std::string name;
    if (!(latest >> name)) {
      return absl::NotFoundError(lcfr::StreamCat(
          path,
          ": neither a checkpoint (no networks.pt) nor a run directory (no checkpoints/LATEST)"));
    }
    dir = path + "/checkpoints/" + name;
  }
  auto config = LoadConfigFile(dir + "/config.yaml");
  if (!config.ok()) return config.status();
  inference::NetworkShape shape;
  shape.game = config->run.game;
  if (shape.game == "kuhn") {
    const engine::KuhnPoker game;
    shape.input_size = game.EncodingSize(), shape.num_actions = game.num_actions();
  } else if (shape.game == "leduc") {
    const engine::LeducPoker game;
    shape.input_size = game.EncodingSize(), shape.num_actions = game.num_actions();
  } else {
    const engine::LostCities game(config->rules);
    shape.input_size = game.EncodingSize(), shape.num_actions = game.num_actions();
  }
  shape.config.hidden_width = config->network.hidden_width;
  shape.config.hidden_layers = config->network.hidden_layers;
  auto activation = inference::ParseActivation(config->network.activation);
  if (!activation.ok()) return activation.status();
  shape.config.activation = *activation;
  auto networks = inference::LoadNetworks(dir + "/networks.pt", &shape);
  if (!networks.ok()) return networks.status();
  CheckpointPolicy policy;
  policy.directory = dir;
  policy.config = *config;
  policy.store = std::make_shared<inference::ModelStore>(*networks);
  return policy;
}

absl::StatusOr<std::unique_ptr<CheckpointBot>> CheckpointBot::Load(const std::string& path) {
  auto policy = LoadCheckpointPolicy(path);
  if (!policy.ok()) return policy.status();
  if (policy->config.run.game != "lost-cities") {
    return absl::InvalidArgumentError(lcfr::StreamCat(path, ": a ", policy->config.run.game,
                                                      " checkpoint, not a Lost Cities one"));
  }
  inference::InferenceConfig inference;
  inference.precision = "fp32";
  auto evaluator = inference::MakeBatchedEvaluator(policy->store, inference);
  if (!evaluator.ok()) return evaluator.status();
  std::unique_ptr<CheckpointBot> bot(new CheckpointBot());
  bot->directory_ = policy->directory;
  bot->rules_ = policy->config.rules;
  bot->evaluator_ = std::move(*evaluator);
  bot->client_ = traversal::PolicyClient::Direct(bot->evaluator_.get(), &bot->stats_);
  bot->player_ = std::make_unique<PolicyBot>(&bot->client_, traversal::kStrategyNetwork,
                                             engine::LostCities(bot->rules_));
  return bot;
}

}  // namespace lcfr::training
