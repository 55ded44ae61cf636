// The training run's configuration, composed of the components' own config structs: each
// component owns its struct, its defaults and its field table (base/fields.h), and this file
// only says which YAML section each one fills:
//
//   run          RunConfig                  (here)
//   rules        engine::Rules              (engine/rules.h)
//   traversal    traversal::CfrConfig       (traversal/cfr.h: the sampling scheme)
//                traversal::SchedulerConfig (traversal/runner.h: workers, width, flush size)
//                TraversalBudget            (here: traversals per iteration)
//   network      inference::NetworkConfig   (inference/network_config.h)
//   inference    inference::InferenceConfig (inference/batched_evaluator.h)
//   memory       MemoryConfig, training OptimizerConfig, evaluation EvaluationConfig,
//   distributed  DistributedConfig          (here)
//   play         play::PlayCard             (play/play_policy.h: how its models play)
//
// The struct defaults are the default run's; a test keeps them equal to configs/default.yaml.
// One table drives YAML parsing, `--set section.key=value` overrides, range checks, help and the
// resolved-config dump; adding a knob is a member with its default and a row in its component's
// table. Unknown sections and keys are errors naming them; enums are parsed once here, through
// each enum's name table. Validate() checks ranges and cross-field rules and never probes the
// hardware (the composition root resolves devices). Torch-free.
#ifndef LCFR_TRAINING_CONFIG_H_
#define LCFR_TRAINING_CONFIG_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/fields.h"
#include "engine/rules.h"
#include "inference/batched_evaluator.h"
#include "inference/network_config.h"
#include "play/play_policy.h"
#include "traversal/cfr.h"
#include "traversal/runner.h"

namespace lcfr::training {

enum class GameId { kLostCities, kKuhn, kLeduc };
inline constexpr EnumName kGameNames[] = {{"lost-cities", 0}, {"kuhn", 1}, {"leduc", 2}};
std::string_view GameName(GameId game);  // "lost-cities", "kuhn", "leduc"

struct RunConfig {
  GameId game = GameId::kLostCities;
  int64_t seed = 1;          // every stream of the run derives from it
  int iterations = 20;       // Deep CFR iterations
  int checkpoint_every = 1;  // write a checkpoint every N iterations (and at the end)
  int keep_every = 10;       // keep the checkpoints of every Nth iteration (0: only the latest)
};

// The traversal budget of an iteration (section `traversal`, with the scheme and scheduler).
struct TraversalBudget {
  int traversals = 1024;        // traversals per player per iteration
  int value_traversals = 1024;  // escher: on-policy value traversals per iteration
};

struct TraversalConfig {
  traversal::CfrConfig cfr;
  traversal::SchedulerConfig scheduler;
  TraversalBudget budget;
};

struct MemoryConfig {
  int advantage_capacity = 150000;  // reservoir per player
  int strategy_capacity = 150000;
  int value_capacity = 150000;  // value scheme: the latest value samples (a sliding window)
};

enum class StrategyLoss { kMse, kCrossEntropy };
inline constexpr EnumName kStrategyLossNames[] = {{"mse", 0}, {"cross_entropy", 1}};

// Section `training`: how the networks are fitted.
struct OptimizerConfig {
  inference::Device device = inference::Device::kCpu;
  int threads = 2;  // libtorch threads for training on the CPU
  int batch_size = 512;
  int advantage_steps = 200;     // SGD steps per advantage network per iteration
  int strategy_steps = 600;      // SGD steps per strategy network training
  int strategy_every = 10;       // train the strategy network every N iterations (and at the end)
  int value_steps = 200;         // value scheme: SGD steps of the value network per iteration
  double learning_rate = 0.001;  // Adam
  bool warm_start = false;  // keep advantage networks between iterations (default: from scratch)
  bool value_reinit =
      false;  // value, escher: retrain the value network from scratch each iteration
  StrategyLoss strategy_loss = StrategyLoss::kMse;  // mse on probabilities, as the Deep CFR paper
  bool linear_weighting = true;                     // weight samples by their iteration
  double max_sample_weight = 10;  // clip importance weights of samples to this (0: no clipping)
  double grad_clip = 1.0;         // gradient norm clip (0: none)
};

struct EvaluationConfig {
  int every = 10;   // evaluate every N iterations (and at the end); needs a strategy network
  int games = 200;  // games per opponent (Lost Cities)
  std::vector<std::string> opponents = {"random", "discard-only", "heuristic-cautious"};
  // The network policies played (training/evaluation.h); the first also reports under eval.<bot>.
  std::vector<std::string> policies = {"current", "average", "average-greedy", "current-greedy"};
  int workers = 2;  // evaluation threads
};

// Several processes (training/distributed.h, docs/distributed.md); ignored by a single process.
struct DistributedConfig {
  int timeout_s = 300;  // a collective or the rendezvous waiting longer than this fails the run
};

struct TrainConfig {
  RunConfig run;
  engine::Rules rules;  // Lost Cities rules (keys as docs/rules.md)
  TraversalConfig traversal;
  // The default run's network is the cards architecture (configs/default.yaml); a bare
  // NetworkConfig is the MLP, valid for every game.
  inference::NetworkConfig network{inference::Architecture::kCards};
  inference::InferenceConfig inference;
  MemoryConfig memory;
  OptimizerConfig training;
  EvaluationConfig evaluation;
  DistributedConfig distributed;
  // How a model of this run plays by default (its card, play/play_policy.h): agent, play and
  // eval read it from a checkpoint's or a model's YAML; training ignores it.
  play::PlayCard play;
};

// One row of the composed table: a component's field, placed in its section.
struct ConfigField {
  std::string section;
  std::string key;
  std::string help;
  std::function<std::string(const TrainConfig&)> value;  // as configuration text

  std::string name() const { return section + "." + key; }
};

// Every field, in dump order.
std::span<const ConfigField> ConfigFields();

// Parses YAML text (`source` names it in messages: a path, "--set", "the embedded default").
// Fields absent from the text keep the values `base` has.
absl::StatusOr<TrainConfig> ParseConfig(const std::string& yaml, const std::string& source,
                                        const TrainConfig& base = TrainConfig{});
absl::StatusOr<TrainConfig> LoadConfigFile(const std::string& path);
// Applies "section.key=value" (the value parsed as YAML).
absl::Status ApplyOverride(TrainConfig& config, const std::string& assignment);
// Ranges and cross-field checks (bot names, ...); messages name the field. No hardware probe.
absl::Status Validate(const TrainConfig& config);
// The resolved config as commented YAML, every field, in table order.
std::string DumpConfig(const TrainConfig& config);
// configs/default.yaml, compiled in.
const std::string& EmbeddedDefaultConfig();

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_CONFIG_H_
