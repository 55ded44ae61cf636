#include "training/config.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "engine/bots.h"
#include "engine/strings.h"
#include "inference/batched_evaluator.h"
#include "inference/network_config.h"
#include "traversal/cfr.h"
#include "traversal/runner.h"

namespace lcfr::training {
namespace {

using Kind = ConfigField::Kind;

#include "training/default_config.inc"  // kDefaultConfigYaml, generated from configs/default.yaml

template <typename Section, typename T>
std::function<void*(TrainConfig&)> Member(Section TrainConfig::*section, T Section::*member) {
  return [section, member](TrainConfig& c) -> void* { return &(c.*section.*member); };
}

std::vector<ConfigField> BuildFields() {
  constexpr double kBig = 1e9;
  std::vector<ConfigField> f;
  auto add = [&](ConfigField field) { f.push_back(std::move(field)); };
  // run
  add({"run",
       "game",
       Kind::kString,
       Member(&TrainConfig::run, &RunSection::game),
       0,
       0,
       {"lost-cities", "kuhn", "leduc"},
       "the game: lost-cities | kuhn | leduc"});
  add({"run",
       "seed",
       Kind::kInt64,
       Member(&TrainConfig::run, &RunSection::seed),
       0,
       9e15,
       {},
       "run seed: networks, traversals, memories and evaluations derive their streams from it"});
  add({"run",
       "iterations",
       Kind::kInt,
       Member(&TrainConfig::run, &RunSection::iterations),
       1,
       1e7,
       {},
       "Deep CFR iterations"});
  add({"run",
       "checkpoint_every",
       Kind::kInt,
       Member(&TrainConfig::run, &RunSection::checkpoint_every),
       1,
       1e7,
       {},
       "write a checkpoint every N iterations (and after the last)"});
  add({"run",
       "keep_every",
       Kind::kInt,
       Member(&TrainConfig::run, &RunSection::keep_every),
       0,
       1e7,
       {},
       "keep every Nth iteration's checkpoint, without its memories; others are replaced "
       "(0: latest only)"});
  // rules: the engine's field table
  for (const engine::RulesField& rf : engine::RulesFields()) {
    auto member = rf.member;
    add({"rules",
         rf.name,
         Kind::kInt,
         [member](TrainConfig& c) -> void* { return &(c.rules.*member); },
         static_cast<double>(rf.min),
         static_cast<double>(rf.max),
         {},
         lcfr::StrCat("Lost Cities: ", rf.help)});
  }
  // traversal
  add({"traversal",
       "workers",
       Kind::kInt,
       Member(&TrainConfig::traversal, &TraversalSection::workers),
       1,
       1024,
       {},
       "traversal threads, each with its own evaluator and fibers"});
  add({"traversal",
       "worker_chunk_size",
       Kind::kInt,
       Member(&TrainConfig::traversal, &TraversalSection::worker_chunk_size),
       1,
       65536,
       {},
       "traversals in flight per worker (fibers); the realized batch size (lcfr sweep)"});
  add({"traversal",
       "max_batch",
       Kind::kInt,
       Member(&TrainConfig::traversal, &TraversalSection::max_batch),
       0,
       1 << 20,
       {},
       "flush at this many waiting requests (0: worker_chunk_size)"});
  add({"traversal",
       "traversals",
       Kind::kInt,
       Member(&TrainConfig::traversal, &TraversalSection::traversals),
       1,
       1e9,
       {},
       "traversals per player per iteration"});
  add({"traversal",
       "scheme",
       Kind::kString,
       Member(&TrainConfig::traversal, &TraversalSection::scheme),
       0,
       0,
       {"external", "outcome", "hybrid", "value"},
       "sampling scheme (traversal/cfr.h)"});
  add({"traversal",
       "epsilon",
       Kind::kDouble,
       Member(&TrainConfig::traversal, &TraversalSection::epsilon),
       1e-9,
       1,
       {},
       "outcome sampling: exploration at traverser decisions, in (0, 1]"});
  add({"traversal",
       "hybrid_depth",
       Kind::kInt,
       Member(&TrainConfig::traversal, &TraversalSection::hybrid_depth),
       0,
       64,
       {},
       "hybrid: traverser decisions expanded before on-policy sampling"});
  add({"traversal",
       "hybrid_actions",
       Kind::kInt,
       Member(&TrainConfig::traversal, &TraversalSection::hybrid_actions),
       0,
       32,
       {},
       "hybrid: actions expanded per node in that region (0: all legal)"});
  add({"traversal",
       "hybrid_epsilon",
       Kind::kDouble,
       Member(&TrainConfig::traversal, &TraversalSection::hybrid_epsilon),
       0,
       1,
       {},
       "hybrid: exploration in the sampled tail"});
  add({"traversal",
       "start_depth_max",
       Kind::kInt,
       Member(&TrainConfig::traversal, &TraversalSection::start_depth_max),
       0,
       1e6,
       {},
       "random starts: a prefix of uniform-in-[0, N] decisions, so samples cover whole games"});
  add({"traversal",
       "strategy_sample_rate",
       Kind::kDouble,
       Member(&TrainConfig::traversal, &TraversalSection::strategy_sample_rate),
       1e-9,
       1,
       {},
       "probability that an opponent decision yields a strategy sample (weight 1/rate)"});
  add({"traversal",
       "common_random_numbers",
       Kind::kBool,
       Member(&TrainConfig::traversal, &TraversalSection::common_random_numbers),
       0,
       0,
       {},
       "expanded actions' subtrees share their random stream (less noisy regrets, unbiased)"});
  add({"traversal",
       "payoff_scale",
       Kind::kDouble,
       Member(&TrainConfig::traversal, &TraversalSection::payoff_scale),
       0,
       kBig,
       {},
       "payoffs are divided by this (0: the game's default; Lost Cities 100 points)"});
  add({"traversal",
       "value_from_iteration",
       Kind::kInt,
       Member(&TrainConfig::traversal, &TraversalSection::value_from_iteration),
       1,
       1e9,
       {},
       "value scheme: tail decisions yield advantage samples from this iteration on"});
  add({"traversal",
       "value_sample_rate",
       Kind::kDouble,
       Member(&TrainConfig::traversal, &TraversalSection::value_sample_rate),
       1e-9,
       1,
       {},
       "value scheme: probability that a tail decision of the traverser is recorded"});
  // network
  add({"network",
       "hidden_width",
       Kind::kInt,
       Member(&TrainConfig::network, &NetworkSection::hidden_width),
       1,
       65536,
       {},
       "units per hidden layer"});
  add({"network",
       "hidden_layers",
       Kind::kInt,
       Member(&TrainConfig::network, &NetworkSection::hidden_layers),
       0,
       64,
       {},
       "hidden layers"});
  add({"network",
       "activation",
       Kind::kString,
       Member(&TrainConfig::network, &NetworkSection::activation),
       0,
       0,
       {"relu", "tanh", "silu"},
       "activation of the hidden layers"});
  // inference
  add({"inference",
       "device",
       Kind::kString,
       Member(&TrainConfig::inference, &InferenceSection::device),
       0,
       0,
       {"cpu", "cuda", "auto"},
       "where traversal forwards run"});
  add({"inference",
       "precision",
       Kind::kString,
       Member(&TrainConfig::inference, &InferenceSection::precision),
       0,
       0,
       {"fp32", "bf16", "auto"},
       "forward arithmetic (auto: bf16 for big batches on AVX512-BF16)"});
  add({"inference",
       "intra_op_threads",
       Kind::kInt,
       Member(&TrainConfig::inference, &InferenceSection::intra_op_threads),
       1,
       1024,
       {},
       "libtorch CPU threads per forward"});
  add({"inference",
       "cuda_graphs",
       Kind::kBool,
       Member(&TrainConfig::inference, &InferenceSection::cuda_graphs),
       0,
       0,
       {},
       "CUDA: replay captured graphs per batch-size bucket"});
  add({"inference",
       "max_batch",
       Kind::kInt,
       Member(&TrainConfig::inference, &InferenceSection::max_batch),
       1,
       1 << 20,
       {},
       "rows per forward; larger batches are served in chunks"});
  // memory
  add({"memory",
       "advantage_capacity",
       Kind::kInt,
       Member(&TrainConfig::memory, &MemorySection::advantage_capacity),
       1,
       1e9,
       {},
       "reservoir capacity of each player's advantage memory (samples)"});
  add({"memory",
       "strategy_capacity",
       Kind::kInt,
       Member(&TrainConfig::memory, &MemorySection::strategy_capacity),
       1,
       1e9,
       {},
       "reservoir capacity of the strategy memory (samples)"});
  add({"memory",
       "value_capacity",
       Kind::kInt,
       Member(&TrainConfig::memory, &MemorySection::value_capacity),
       1,
       1e9,
       {},
       "value scheme: the latest value samples kept (a sliding window, not a reservoir)"});
  // training
  add({"training",
       "device",
       Kind::kString,
       Member(&TrainConfig::training, &TrainingSection::device),
       0,
       0,
       {"cpu", "cuda", "auto"},
       "where networks train"});
  add({"training",
       "threads",
       Kind::kInt,
       Member(&TrainConfig::training, &TrainingSection::threads),
       1,
       1024,
       {},
       "libtorch threads for training on the CPU"});
  add({"training",
       "batch_size",
       Kind::kInt,
       Member(&TrainConfig::training, &TrainingSection::batch_size),
       1,
       1 << 20,
       {},
       "samples per SGD step"});
  add({"training",
       "advantage_steps",
       Kind::kInt,
       Member(&TrainConfig::training, &TrainingSection::advantage_steps),
       1,
       1e9,
       {},
       "SGD steps per advantage network per iteration"});
  add({"training",
       "strategy_steps",
       Kind::kInt,
       Member(&TrainConfig::training, &TrainingSection::strategy_steps),
       1,
       1e9,
       {},
       "SGD steps per strategy network training"});
  add({"training",
       "strategy_every",
       Kind::kInt,
       Member(&TrainConfig::training, &TrainingSection::strategy_every),
       1,
       1e7,
       {},
       "train the strategy network every N iterations (and after the last)"});
  add({"training",
       "value_steps",
       Kind::kInt,
       Member(&TrainConfig::training, &TrainingSection::value_steps),
       1,
       1e9,
       {},
       "value scheme: SGD steps of the value network per iteration (kept between iterations)"});
  add({"training",
       "learning_rate",
       Kind::kDouble,
       Member(&TrainConfig::training, &TrainingSection::learning_rate),
       1e-9,
       10,
       {},
       "Adam learning rate"});
  add({"training",
       "warm_start",
       Kind::kBool,
       Member(&TrainConfig::training, &TrainingSection::warm_start),
       0,
       0,
       {},
       "keep advantage networks between iterations instead of retraining from scratch"});
  add({"training",
       "strategy_loss",
       Kind::kString,
       Member(&TrainConfig::training, &TrainingSection::strategy_loss),
       0,
       0,
       {"mse", "cross_entropy"},
       "strategy network loss: mse on probabilities | cross_entropy"});
  add({"training",
       "linear_weighting",
       Kind::kBool,
       Member(&TrainConfig::training, &TrainingSection::linear_weighting),
       0,
       0,
       {},
       "weight samples by their iteration (linear CFR)"});
  add({"training",
       "max_sample_weight",
       Kind::kDouble,
       Member(&TrainConfig::training, &TrainingSection::max_sample_weight),
       0,
       kBig,
       {},
       "clip sample importance weights to this (0: no clipping)"});
  add({"training",
       "grad_clip",
       Kind::kDouble,
       Member(&TrainConfig::training, &TrainingSection::grad_clip),
       0,
       kBig,
       {},
       "gradient norm clip (0: none)"});
  // evaluation
  add({"evaluation",
       "every",
       Kind::kInt,
       Member(&TrainConfig::evaluation, &EvaluationSection::every),
       1,
       1e7,
       {},
       "evaluate every N iterations (and after the last), with the strategy network"});
  add({"evaluation",
       "games",
       Kind::kInt,
       Member(&TrainConfig::evaluation, &EvaluationSection::games),
       2,
       1e8,
       {},
       "Lost Cities: games per opponent (seat-alternating pairs)"});
  add({"evaluation",
       "opponents",
       Kind::kStringList,
       Member(&TrainConfig::evaluation, &EvaluationSection::opponents),
       0,
       0,
       {},
       "Lost Cities: bots to play (lcfr match --help lists them)"});
  add({"evaluation",
       "workers",
       Kind::kInt,
       Member(&TrainConfig::evaluation, &EvaluationSection::workers),
       1,
       1024,
       {},
       "evaluation threads"});
  // distributed
  add({"distributed",
       "timeout_s",
       Kind::kInt,
       Member(&TrainConfig::distributed, &DistributedSection::timeout_s),
       1,
       86400,
       {},
       "several processes: a collective or the rendezvous waiting longer fails the run (s)"});
  return f;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string Where(const std::string& source, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.line >= 0 ? lcfr::StrCat(source, ":", mark.line + 1) : source;
}

absl::Status SetField(TrainConfig& config, const ConfigField& field, const YAML::Node& value,
                      const std::string& where) {
  const std::string name = field.name();
  auto bad = [&](const std::string& what) {
    return absl::InvalidArgumentError(lcfr::StrCat(where, ": ", name, ": ", what));
  };
  void* target = field.field(config);
  try {
    switch (field.kind) {
      case Kind::kInt:
      case Kind::kInt64:
      case Kind::kDouble: {
        if (!value.IsScalar()) return bad("expected a number");
        double number;
        if (field.kind == Kind::kDouble) {
          number = value.as<double>();
        } else {
          const long long integer = value.as<long long>();
          number = static_cast<double>(integer);
        }
        if (!(number >= field.min && number <= field.max)) {
          return bad(
              lcfr::StrCat(value.Scalar(), " is out of range [", field.min, ", ", field.max, "]"));
        }
        if (field.kind == Kind::kInt) *static_cast<int*>(target) = static_cast<int>(number);
        if (field.kind == Kind::kInt64) *static_cast<int64_t*>(target) = value.as<long long>();
        if (field.kind == Kind::kDouble) *static_cast<double*>(target) = number;
        return absl::OkStatus();
      }
      case Kind::kBool:
        if (!value.IsScalar()) return bad("expected true or false");
        *static_cast<bool*>(target) = value.as<bool>();
        return absl::OkStatus();
      case Kind::kString: {
        if (!value.IsScalar()) return bad("expected a string");
        const std::string s = value.as<std::string>();
        if (!field.choices.empty() &&
            std::find(field.choices.begin(), field.choices.end(), s) == field.choices.end()) {
          return bad(lcfr::StrCat("'", s, "' is not one of ", Join(field.choices)));
        }
        *static_cast<std::string*>(target) = s;
        return absl::OkStatus();
      }
      case Kind::kStringList: {
        std::vector<std::string> items;
        if (value.IsSequence()) {
          for (const auto& item : value) items.push_back(item.as<std::string>());
        } else if (value.IsScalar()) {  // "a,b,c" (handy with --set)
          std::stringstream in(value.as<std::string>());
          for (std::string item; std::getline(in, item, ',');) {
            if (!item.empty()) items.push_back(item);
          }
        } else {
          return bad("expected a list of strings");
        }
        *static_cast<std::vector<std::string>*>(target) = items;
        return absl::OkStatus();
      }
    }
  } catch (const YAML::Exception&) {
    const char* expected = field.kind == Kind::kBool     ? "true or false"
                           : field.kind == Kind::kDouble ? "a number"
                                                         : "an integer";
    return bad(lcfr::StrCat("expected ", expected, ", got '", value.Scalar(), "'"));
  }
  return absl::OkStatus();
}

const ConfigField* FindField(const std::string& section, const std::string& key) {
  for (const ConfigField& f : ConfigFields()) {
    if (f.section == section && f.key == key) return &f;
  }
  return nullptr;
}

std::vector<std::string> Sections() {
  std::vector<std::string> sections;
  for (const ConfigField& f : ConfigFields()) {
    if (sections.empty() || sections.back() != f.section) sections.push_back(f.section);
  }
  return sections;
}

std::vector<std::string> KeysOf(const std::string& section) {
  std::vector<std::string> keys;
  for (const ConfigField& f : ConfigFields()) {
    if (f.section == section) keys.push_back(f.key);
  }
  return keys;
}

}  // namespace

std::span<const ConfigField> ConfigFields() {
  static const std::vector<ConfigField> fields = BuildFields();
  return fields;
}

absl::StatusOr<TrainConfig> ParseConfig(const std::string& yaml, const std::string& source,
                                        const TrainConfig& base) {
  TrainConfig config = base;
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(lcfr::StrCat(source, ":", e.mark.line + 1, ": ", e.msg));
  }
  if (root.IsNull()) return config;
  if (!root.IsMap()) {
    return absl::InvalidArgumentError(lcfr::StrCat(source, ": expected a map of sections"));
  }
  const std::vector<std::string> sections = Sections();
  for (const auto& entry : root) {
    const std::string section = entry.first.as<std::string>();
    if (std::find(sections.begin(), sections.end(), section) == sections.end()) {
      return absl::InvalidArgumentError(lcfr::StrCat(Where(source, entry.first),
                                                     ": unknown section '", section,
                                                     "' (sections: ", Join(sections), ")"));
    }
    if (entry.second.IsNull()) continue;
    if (!entry.second.IsMap()) {
      return absl::InvalidArgumentError(
          lcfr::StrCat(Where(source, entry.second), ": ", section, ": expected a map of keys"));
    }
    for (const auto& item : entry.second) {
      const std::string key = item.first.as<std::string>();
      const ConfigField* field = FindField(section, key);
      if (field == nullptr) {
        return absl::InvalidArgumentError(lcfr::StrCat(Where(source, item.first), ": unknown key '",
                                                       section, ".", key, "' (keys of ", section,
                                                       ": ", Join(KeysOf(section)), ")"));
      }
      if (absl::Status s = SetField(config, *field, item.second, Where(source, item.second));
          !s.ok()) {
        return s;
      }
    }
  }
  return config;
}

absl::StatusOr<TrainConfig> LoadConfigFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(lcfr::StrCat(path, ": cannot open the config file"));
  std::stringstream text;
  text << in.rdbuf();
  return ParseConfig(text.str(), path);
}

absl::Status ApplyOverride(TrainConfig& config, const std::string& assignment) {
  const size_t eq = assignment.find('=');
  const size_t dot = assignment.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq) {
    return absl::InvalidArgumentError(lcfr::StrCat(
        "--set '", assignment, "': expected section.key=value, e.g. --set run.iterations=10"));
  }
  const std::string section = assignment.substr(0, dot);
  const std::string key = assignment.substr(dot + 1, eq - dot - 1);
  const ConfigField* field = FindField(section, key);
  if (field == nullptr) {
    return absl::InvalidArgumentError(lcfr::StrCat("--set: unknown key '", section, ".", key, "'"));
  }
  YAML::Node value;
  try {
    value = YAML::Load(assignment.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(lcfr::StrCat("--set ", assignment, ": ", e.msg));
  }
  return SetField(config, *field, value, "--set");
}

absl::Status Validate(const TrainConfig& c) {
  auto error = [](const std::string& what) { return absl::InvalidArgumentError(what); };
  if (absl::Status s = engine::Validate(c.rules); !s.ok()) {
    return error(lcfr::StrCat("rules: ", s.message()));
  }
  const auto scheme = traversal::ParseScheme(c.traversal.scheme);
  if (!scheme.ok()) return error(lcfr::StrCat("traversal.scheme: ", scheme.status().message()));
  if (c.network.hidden_layers > 0 && c.network.hidden_width < 1) {
    return error("network.hidden_width must be >= 1");
  }
  for (const std::string& name : c.evaluation.opponents) {
    if (!engine::MakeBot(name).ok()) {
      return error(lcfr::StrCat("evaluation.opponents: unknown bot '", name,
                                "' (known: ", Join(engine::BotNames()), ")"));
    }
  }
  for (const char* which : {"inference", "training"}) {
    const std::string& device =
        std::string(which) == "inference" ? c.inference.device : c.training.device;
    if (auto resolved = inference::ResolveDevice(device); !resolved.ok()) {
      return error(lcfr::StrCat(which, ".device: ", resolved.status().message()));
    }
  }
  return absl::OkStatus();
}

std::string DumpConfig(const TrainConfig& config) {
  TrainConfig copy = config;
  std::string out = "# Resolved configuration (lcfr train). Every key, with its meaning.\n";
  std::string section;
  for (const ConfigField& f : ConfigFields()) {
    if (f.section != section) {
      section = f.section;
      out += lcfr::StrCat("\n", section, ":\n");
    }
    void* p = f.field(copy);
    std::string value;
    switch (f.kind) {
      case Kind::kInt:
        value = lcfr::StrCat(*static_cast<int*>(p));
        break;
      case Kind::kInt64:
        value = lcfr::StrCat(*static_cast<int64_t*>(p));
        break;
      case Kind::kDouble:
        value = fmt::format("{}", *static_cast<double*>(p));
        break;
      case Kind::kBool:
        value = *static_cast<bool*>(p) ? "true" : "false";
        break;
      case Kind::kString:
        value = *static_cast<std::string*>(p);
        break;
      case Kind::kStringList:
        value = "[" + Join(*static_cast<std::vector<std::string>*>(p)) + "]";
        break;
    }
    out += lcfr::StrCat("  ", f.key, ": ", value, "  # ", f.help, "\n");
  }
  return out;
}

const std::string& EmbeddedDefaultConfig() {
  static const std::string text = kDefaultConfigYaml;
  return text;
}

}  // namespace lcfr::training
