// The training run's configuration: one struct per component, with in-class defaults equal to
// configs/default.yaml (a test keeps them equal), and one field table that drives YAML parsing,
// `--set section.key=value` overrides, range checks, help and the resolved-config dump, so no
// field is listed three times. Unknown sections and keys are errors naming them. Torch-free.
#ifndef LCFR_TRAINING_CONFIG_H_
#define LCFR_TRAINING_CONFIG_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/rules.h"

namespace lcfr::training {

struct RunSection {
  std::string game = "lost-cities";  // lost-cities | kuhn | leduc
  int64_t seed = 1;                  // every stream of the run derives from it
  int iterations = 70;               // Deep CFR iterations
  int checkpoint_every = 1;          // write a checkpoint every N iterations (and at the end)
  int keep_every = 10;  // keep the checkpoints of every Nth iteration (0: only the latest)
};

struct TraversalSection {
  int workers = 2;                    // traversal threads, each with its own evaluator
  int worker_chunk_size = 64;         // traversals in flight per worker (fibers)
  int max_batch = 0;                  // flush at this many waiting requests; 0 = worker_chunk_size
  int traversals = 1024;              // traversals per player per iteration
  std::string scheme = "value";       // external | outcome | hybrid | value
  double epsilon = 0.6;               // outcome sampling exploration
  int hybrid_depth = 1;               // hybrid: traverser decisions expanded
  int hybrid_actions = 0;             // hybrid: actions expanded per node (0 = all)
  double hybrid_epsilon = 0.0;        // hybrid: exploration in the sampled tail
  int start_depth_max = 120;          // random starts: prefix length uniform in [0, this]
  double strategy_sample_rate = 0.1;  // fraction of opponent decisions that yield a strategy sample
  bool common_random_numbers =
      true;                   // expanded actions' subtrees share their random stream (small gain)
  double payoff_scale = 0.0;  // 0 = the game's default (Lost Cities: 100 points)
  int value_from_iteration = 2;     // value scheme: tail advantage samples from this iteration
  double value_sample_rate = 0.05;  // value scheme: fraction of tail decisions recorded
};

struct NetworkSection {
  int hidden_width = 128;
  int hidden_layers = 2;
  std::string activation = "relu";  // relu | tanh | silu
};

struct InferenceSection {
  std::string device = "cpu";      // cpu | cuda | auto
  std::string precision = "auto";  // fp32 | bf16 | auto
  int intra_op_threads = 1;
  bool cuda_graphs = false;
  int max_batch = 1024;
};

struct MemorySection {
  int advantage_capacity = 150000;  // reservoir per player
  int strategy_capacity = 150000;
  int value_capacity = 150000;  // value scheme: the latest value samples (a sliding window)
};

struct TrainingSection {
  std::string device = "cpu";  // cpu | cuda | auto
  int threads = 2;             // libtorch threads for training on the CPU
  int batch_size = 512;
  int advantage_steps = 200;     // SGD steps per advantage network per iteration
  int strategy_steps = 600;      // SGD steps per strategy network training
  int strategy_every = 10;       // train the strategy network every N iterations (and at the end)
  int value_steps = 200;         // value scheme: SGD steps of the value network per iteration
  double learning_rate = 0.001;  // Adam
  bool warm_start =
      false;  // keep advantage networks between iterations (default: retrain from scratch)
  std::string strategy_loss =
      "mse";                      // mse (on probabilities, as the Deep CFR paper) | cross_entropy
  bool linear_weighting = true;   // weight samples by their iteration (linear CFR)
  double max_sample_weight = 10;  // clip importance weights of samples to this (0: no clipping)
  double grad_clip = 1.0;         // gradient norm clip (0: none)
};

struct EvaluationSection {
  int every = 10;   // evaluate every N iterations (and at the end); needs a strategy network
  int games = 200;  // games per opponent (Lost Cities)
  std::vector<std::string> opponents = {"random", "discard-only", "heuristic-cautious"};
  int workers = 2;  // evaluation threads
};

// Several processes (training/distributed.h, docs/distributed.md); ignored by a single process.
struct DistributedSection {
  int timeout_s = 300;  // a collective or the rendezvous waiting longer than this fails the run
};

struct TrainConfig {
  RunSection run;
  engine::Rules rules;  // Lost Cities rules (section "rules"; keys as configs/README.md)
  TraversalSection traversal;
  NetworkSection network;
  InferenceSection inference;
  MemorySection memory;
  TrainingSection training;
  EvaluationSection evaluation;
  DistributedSection distributed;
};

// One row of the field table.
struct ConfigField {
  enum class Kind { kInt, kInt64, kDouble, kBool, kString, kStringList };
  std::string section;
  std::string key;
  Kind kind;
  std::function<void*(TrainConfig&)> field;  // points at the member in a config
  double min = 0, max = 0;                   // numeric range (inclusive)
  std::vector<std::string> choices;          // allowed strings (empty: any)
  std::string help;

  std::string name() const { return section + "." + key; }
};

std::span<const ConfigField> ConfigFields();

// Parses YAML text (`source` names it in messages: a path, "--set", "the embedded default").
// Fields absent from the text keep the values `base` has.
absl::StatusOr<TrainConfig> ParseConfig(const std::string& yaml, const std::string& source,
                                        const TrainConfig& base = TrainConfig{});
absl::StatusOr<TrainConfig> LoadConfigFile(const std::string& path);
// Applies "section.key=value" (the value parsed as YAML).
absl::Status ApplyOverride(TrainConfig& config, const std::string& assignment);
// Cross-field checks (game name, scheme, devices, bot names, ...), messages name the field.
absl::Status Validate(const TrainConfig& config);
// The resolved config as commented YAML, every field, in table order.
std::string DumpConfig(const TrainConfig& config);
// configs/default.yaml, compiled in.
const std::string& EmbeddedDefaultConfig();

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_CONFIG_H_
