#include "training/config.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <sstream>
#include <variant>

#include "base/files.h"
#include "base/strings.h"
#include "play/bots.h"
#include "play/play_policy.h"

namespace lcfr::training {
namespace {

#include "training/default_config.inc"  // kDefaultConfigYaml, generated from configs/default.yaml

// ---- The training-side components' tables ----------------------------------------------------

constexpr Field<RunConfig> kRunFields[] = {
    Choice<&RunConfig::game>("game", kGameNames, "the game: lost-cities | kuhn | leduc"),
    Number("seed", &RunConfig::seed, 0, 9e15,
           "run seed: networks, traversals, memories and evaluations derive their streams from it"),
    Number("iterations", &RunConfig::iterations, 1, 1e7, "Deep CFR iterations"),
    Number("checkpoint_every", &RunConfig::checkpoint_every, 1, 1e7,
           "write a checkpoint every N iterations (and after the last)"),
    Number("keep_every", &RunConfig::keep_every, 0, 1e7,
           "keep every Nth iteration's checkpoint, without its memories; others are replaced "
           "(0: latest only)"),
};

constexpr Field<TraversalBudget> kBudgetFields[] = {
    Number("traversals", &TraversalBudget::traversals, 1, 1e9,
           "traversals per player per iteration"),
    Number("value_traversals", &TraversalBudget::value_traversals, 1, 1e9,
           "escher: on-policy value traversals per iteration (the value network's samples)"),
};

constexpr Field<MemoryConfig> kMemoryFields[] = {
    Number("advantage_capacity", &MemoryConfig::advantage_capacity, 1, 1e9,
           "reservoir capacity of each player's advantage memory (samples)"),
    Number("strategy_capacity", &MemoryConfig::strategy_capacity, 1, 1e9,
           "reservoir capacity of the strategy memory (samples)"),
    Number("value_capacity", &MemoryConfig::value_capacity, 1, 1e9,
           "value scheme: the latest value samples kept (a sliding window, not a reservoir)"),
};

constexpr Field<OptimizerConfig> kOptimizerFields[] = {
    Choice<&OptimizerConfig::device>("device", inference::kDeviceNames, "where networks train"),
    Number("threads", &OptimizerConfig::threads, 1, 1024,
           "libtorch threads for training on the CPU"),
    Number("batch_size", &OptimizerConfig::batch_size, 1, 1 << 20, "samples per SGD step"),
    Number("advantage_steps", &OptimizerConfig::advantage_steps, 1, 1e9,
           "SGD steps per advantage network per iteration"),
    Number("strategy_steps", &OptimizerConfig::strategy_steps, 1, 1e9,
           "SGD steps per strategy network training"),
    Number("strategy_every", &OptimizerConfig::strategy_every, 1, 1e7,
           "train the strategy network every N iterations (and after the last)"),
    Number("value_steps", &OptimizerConfig::value_steps, 1, 1e9,
           "value scheme: SGD steps of the value network per iteration (kept between iterations)"),
    Number("learning_rate", &OptimizerConfig::learning_rate, 1e-9, 10, "Adam learning rate"),
    Flag("warm_start", &OptimizerConfig::warm_start,
         "keep advantage networks between iterations instead of retraining from scratch"),
    Flag("value_reinit", &OptimizerConfig::value_reinit,
         "value, escher: retrain the value network from scratch each iteration (else it keeps "
         "its weights)"),
    Choice<&OptimizerConfig::strategy_loss>(
        "strategy_loss", kStrategyLossNames,
        "strategy network loss: mse on probabilities | cross_entropy"),
    Flag("linear_weighting", &OptimizerConfig::linear_weighting,
         "weight samples by their iteration (linear CFR)"),
    Number("max_sample_weight", &OptimizerConfig::max_sample_weight, 0, 1e9,
           "clip sample importance weights to this (0: no clipping)"),
    Number("grad_clip", &OptimizerConfig::grad_clip, 0, 1e9, "gradient norm clip (0: none)"),
};

constexpr Field<EvaluationConfig> kEvaluationFields[] = {
    Number(
        "every", &EvaluationConfig::every, 1, 1e7,
        "evaluate every N iterations (and after the last), once the strategy network is trained"),
    Number("games", &EvaluationConfig::games, 2, 1e8,
           "Lost Cities: games per opponent (seat-alternating pairs)"),
    List("opponents", &EvaluationConfig::opponents,
         "Lost Cities: bots to play (lcfr match --help lists them)"),
    List("policies", &EvaluationConfig::policies,
         "Lost Cities: network policies that play them (average | average-greedy | current | "
         "current-greedy); the first also under eval.<bot>"),
    Number("workers", &EvaluationConfig::workers, 1, 1024, "evaluation threads"),
};

constexpr Field<DistributedConfig> kDistributedFields[] = {
    Number("timeout_s", &DistributedConfig::timeout_s, 1, 86400,
           "several processes: a collective or the rendezvous waiting longer fails the run (s)"),
};

// Keys that were renamed; old files (a checkpoint's config.yaml) still load.
struct Renamed {
  const char* section;
  const char* old_key;
  const char* key;
};
constexpr Renamed kRenamed[] = {
    {"traversal", "max_batch", "flush_size"},
    {"inference", "max_batch", "max_rows"},
};

// ---- YAML -------------------------------------------------------------------------------------

std::string Where(const std::string& source, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.line >= 0 ? lcfr::StrCat(source, ":", mark.line + 1) : source;
}

absl::Status Bad(const std::string& where, const std::string& name, const std::string& what) {
  return absl::InvalidArgumentError(lcfr::StrCat(where, ": ", name, ": ", what));
}

// Sets one field of `s` from a YAML value; `name` is "section.key".
template <typename S>
absl::Status SetFromYaml(S& s, const Field<S>& field, const YAML::Node& value,
                         const std::string& name, const std::string& where) {
  auto bad = [&](const std::string& what) { return Bad(where, name, what); };
  auto number = [&]<typename T>(T S::*member) -> absl::Status {
    if (!value.IsScalar()) return bad("expected a number");
    double x;  // range-checked before the conversion to T, which could wrap
    try {
      if constexpr (std::is_same_v<T, double>) {
        x = value.as<double>();
      } else {
        x = static_cast<double>(value.as<long long>());
      }
    } catch (const YAML::Exception&) {
      return bad(lcfr::StrCat("expected ", std::is_same_v<T, double> ? "a number" : "an integer",
                              ", got '", value.Scalar(), "'"));
    }
    if (!(x >= field.min && x <= field.max)) {
      return bad(lcfr::StrCat(value.Scalar(), " is out of range [", NumberText(field.min), ", ",
                              NumberText(field.max), "]"));
    }
    if constexpr (std::is_same_v<T, double>) {
      s.*member = x;
    } else {
      s.*member = static_cast<T>(value.as<long long>());
    }
    return absl::OkStatus();
  };
  struct Visitor {
    S& s;
    const Field<S>& field;
    const YAML::Node& value;
    decltype(bad)& bad_;
    decltype(number)& number_;
    absl::Status operator()(int S::*m) { return number_(m); }
    absl::Status operator()(int64_t S::*m) { return number_(m); }
    absl::Status operator()(double S::*m) { return number_(m); }
    absl::Status operator()(bool S::*m) {
      try {
        if (value.IsScalar()) {
          s.*m = value.as<bool>();
          return absl::OkStatus();
        }
      } catch (const YAML::Exception&) {
      }
      return bad_(lcfr::StrCat("expected true or false",
                               value.IsScalar() ? ", got '" + value.Scalar() + "'" : ""));
    }
    absl::Status operator()(std::string S::*m) {
      if (!value.IsScalar()) return bad_("expected a string");
      s.*m = value.Scalar();
      return absl::OkStatus();
    }
    absl::Status operator()(std::vector<std::string> S::*m) {
      std::vector<std::string> items;
      if (value.IsSequence()) {
        for (const auto& item : value) {
          if (!item.IsScalar()) return bad_("expected a list of strings");
          items.push_back(item.Scalar());
        }
      } else if (value.IsScalar()) {  // "a,b,c" (handy with --set)
        std::stringstream in(value.Scalar());
        for (std::string item; std::getline(in, item, ',');) {
          const size_t first = item.find_first_not_of(" \t");
          if (first == std::string::npos) continue;
          items.push_back(item.substr(first, item.find_last_not_of(" \t") - first + 1));
        }
      } else {
        return bad_("expected a list of strings");
      }
      s.*m = items;
      return absl::OkStatus();
    }
    absl::Status operator()(const EnumMember<S>& m) {
      if (!value.IsScalar()) return bad_(lcfr::StrCat("expected one of ", JoinNames(field.names)));
      const std::optional<int> parsed = ValueOf(field.names, value.Scalar());
      if (!parsed) {
        return bad_(lcfr::StrCat("'", value.Scalar(), "' is not one of ", JoinNames(field.names)));
      }
      m.set(s, *parsed);
      return absl::OkStatus();
    }
  };
  return std::visit(Visitor{s, field, value, bad, number}, field.member);
}

// ---- The composed table -----------------------------------------------------------------------

struct Row {
  ConfigField field;
  std::function<absl::Status(TrainConfig&, const YAML::Node&, const std::string& where)> set;
};

class Table {
 public:
  // Places a component's fields in `section`; `project` finds its struct in a TrainConfig.
  template <typename S>
  void Add(const std::string& section, S& (*project)(TrainConfig&),
           std::span<const Field<S>> fields) {
    for (const Field<S>& f : fields) {
      const std::string name = section + "." + std::string(f.key);
      rows_.push_back(
          {{section, std::string(f.key), std::string(f.help),
            [project, f](const TrainConfig& c) {
              return ValueText(project(const_cast<TrainConfig&>(c)), f);
            }},
           [project, f, name](TrainConfig& c, const YAML::Node& value, const std::string& where) {
             return SetFromYaml(project(c), f, value, name, where);
           }});
    }
  }

  // The rules: the engine's own table of integers.
  void AddRules() {
    for (const engine::RulesField& rf : engine::RulesFields()) {
      const std::string name = lcfr::StrCat("rules.", rf.name);
      const auto member = rf.member;
      rows_.push_back(
          {{"rules", rf.name, lcfr::StrCat("Lost Cities: ", rf.help),
            [member](const TrainConfig& c) { return std::to_string(c.rules.*member); }},
           [rf, name](TrainConfig& c, const YAML::Node& value, const std::string& where) {
             long long parsed;
             try {
               if (!value.IsScalar()) return Bad(where, name, "expected an integer");
               parsed = value.as<long long>();
             } catch (const YAML::Exception&) {
               return Bad(where, name,
                          lcfr::StrCat("expected an integer, got '", value.Scalar(), "'"));
             }
             if (parsed < rf.min || parsed > rf.max) {
               return Bad(where, name,
                          lcfr::StrCat(parsed, " is out of range [", rf.min, ", ", rf.max, "]"));
             }
             c.rules.*rf.member = static_cast<int>(parsed);
             return absl::OkStatus();
           }});
    }
  }

  const std::vector<Row>& rows() const { return rows_; }

 private:
  std::vector<Row> rows_;
};

const Table& TheTable() {
  static const Table table = [] {
    Table t;
    t.Add<RunConfig>(
        "run", [](TrainConfig& c) -> RunConfig& { return c.run; }, kRunFields);
    t.AddRules();
    t.Add<traversal::SchedulerConfig>(
        "traversal",
        [](TrainConfig& c) -> traversal::SchedulerConfig& { return c.traversal.scheduler; },
        traversal::SchedulerConfigFields());
    t.Add<TraversalBudget>(
        "traversal", [](TrainConfig& c) -> TraversalBudget& { return c.traversal.budget; },
        kBudgetFields);
    t.Add<traversal::CfrConfig>(
        "traversal", [](TrainConfig& c) -> traversal::CfrConfig& { return c.traversal.cfr; },
        traversal::CfrConfigFields());
    t.Add<inference::NetworkConfig>(
        "network", [](TrainConfig& c) -> inference::NetworkConfig& { return c.network; },
        inference::NetworkConfigFields());
    t.Add<inference::InferenceConfig>(
        "inference", [](TrainConfig& c) -> inference::InferenceConfig& { return c.inference; },
        inference::InferenceConfigFields());
    t.Add<MemoryConfig>(
        "memory", [](TrainConfig& c) -> MemoryConfig& { return c.memory; }, kMemoryFields);
    t.Add<OptimizerConfig>(
        "training", [](TrainConfig& c) -> OptimizerConfig& { return c.training; },
        kOptimizerFields);
    t.Add<EvaluationConfig>(
        "evaluation", [](TrainConfig& c) -> EvaluationConfig& { return c.evaluation; },
        kEvaluationFields);
    t.Add<DistributedConfig>(
        "distributed", [](TrainConfig& c) -> DistributedConfig& { return c.distributed; },
        kDistributedFields);
    t.Add<play::PlayCard>(
        "play", [](TrainConfig& c) -> play::PlayCard& { return c.play; }, play::PlayCardFields());
    return t;
  }();
  return table;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

const Row* FindRow(const std::string& section, std::string key) {
  for (const Renamed& r : kRenamed) {
    if (section == r.section && key == r.old_key) key = r.key;
  }
  for (const Row& row : TheTable().rows()) {
    if (row.field.section == section && row.field.key == key) return &row;
  }
  return nullptr;
}

std::vector<std::string> Sections() {
  std::vector<std::string> sections;
  for (const Row& row : TheTable().rows()) {
    if (sections.empty() || sections.back() != row.field.section) {
      sections.push_back(row.field.section);
    }
  }
  return sections;
}

std::vector<std::string> KeysOf(const std::string& section) {
  std::vector<std::string> keys;
  for (const Row& row : TheTable().rows()) {
    if (row.field.section == section) keys.push_back(row.field.key);
  }
  return keys;
}

absl::StatusOr<TrainConfig> ParseTree(const YAML::Node& root, const std::string& source,
                                      TrainConfig config) {
  if (root.IsNull()) return config;
  if (!root.IsMap()) {
    return absl::InvalidArgumentError(lcfr::StrCat(source, ": expected a map of sections"));
  }
  const std::vector<std::string> sections = Sections();
  // YAML maps keep duplicate keys; the last would win silently. Each name's first line.
  std::map<std::string, std::string> seen;
  auto duplicate = [&](const std::string& name, const YAML::Node& node) -> absl::Status {
    const auto [it, inserted] = seen.emplace(name, Where(source, node));
    if (inserted) return absl::OkStatus();
    return absl::InvalidArgumentError(lcfr::StrCat(Where(source, node), ": '", name,
                                                   "' appears twice (first at ", it->second, ")"));
  };
  for (const auto& entry : root) {
    if (!entry.first.IsScalar()) {
      return absl::InvalidArgumentError(
          lcfr::StrCat(Where(source, entry.first), ": a section name must be a plain word"));
    }
    const std::string section = entry.first.Scalar();
    if (std::find(sections.begin(), sections.end(), section) == sections.end()) {
      return absl::InvalidArgumentError(lcfr::StrCat(Where(source, entry.first),
                                                     ": unknown section '", section,
                                                     "' (sections: ", Join(sections), ")"));
    }
    if (absl::Status s = duplicate(section, entry.first); !s.ok()) return s;
    if (entry.second.IsNull()) continue;
    if (!entry.second.IsMap()) {
      return absl::InvalidArgumentError(
          lcfr::StrCat(Where(source, entry.second), ": ", section, ": expected a map of keys"));
    }
    for (const auto& item : entry.second) {
      if (!item.first.IsScalar()) {
        return absl::InvalidArgumentError(
            lcfr::StrCat(Where(source, item.first), ": ", section, ": a key must be a plain word"));
      }
      const std::string key = item.first.Scalar();
      const Row* row = FindRow(section, key);
      if (row == nullptr) {
        return absl::InvalidArgumentError(lcfr::StrCat(Where(source, item.first), ": unknown key '",
                                                       section, ".", key, "' (keys of ", section,
                                                       ": ", Join(KeysOf(section)), ")"));
      }
      if (absl::Status s = duplicate(lcfr::StrCat(section, ".", key), item.first); !s.ok()) {
        return s;
      }
      if (absl::Status s = row->set(config, item.second, Where(source, item.second)); !s.ok()) {
        return s;
      }
    }
  }
  return config;
}

// A component's ranges, with the section named in the message.
template <typename S>
absl::Status Ranges(const S& s, std::span<const Field<S>> fields, const char* section) {
  return CheckRanges<S>(s, fields, lcfr::StrCat(section, "."));
}

}  // namespace

std::string_view GameName(GameId game) { return NameOf(kGameNames, static_cast<int>(game)); }

std::span<const ConfigField> ConfigFields() {
  static const std::vector<ConfigField> fields = [] {
    std::vector<ConfigField> out;
    for (const Row& row : TheTable().rows()) out.push_back(row.field);
    return out;
  }();
  return fields;
}

absl::StatusOr<TrainConfig> ParseConfig(const std::string& yaml, const std::string& source,
                                        const TrainConfig& base) {
  try {
    return ParseTree(YAML::Load(yaml), source, base);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(lcfr::StrCat(source, ":", e.mark.line + 1, ": ", e.msg));
  }
}

absl::StatusOr<TrainConfig> LoadConfigFile(const std::string& path) {
  if (absl::Status readable = CheckReadableFile(path); !readable.ok()) {
    return absl::Status(
        readable.code(),
        lcfr::StrCat(readable.message(),
                     absl::IsNotFound(readable) ? " (the config file)" : ", not a config file"));
  }
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(lcfr::StrCat(path, ": cannot open the config file"));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::InvalidArgumentError(lcfr::StrCat(path, ": cannot read"));
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
  const Row* row = FindRow(section, key);
  if (row == nullptr) {
    return absl::InvalidArgumentError(lcfr::StrCat("--set: unknown key '", section, ".", key, "'"));
  }
  try {
    return row->set(config, YAML::Load(assignment.substr(eq + 1)), "--set");
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(lcfr::StrCat("--set ", assignment, ": ", e.msg));
  }
}

absl::Status Validate(const TrainConfig& c) {
  if (absl::Status s = engine::Validate(c.rules); !s.ok()) {
    return absl::InvalidArgumentError(lcfr::StrCat("rules: ", s.message()));
  }
  for (absl::Status s : {
           Ranges(c.run, std::span<const Field<RunConfig>>(kRunFields), "run"),
           Ranges(c.traversal.scheduler, traversal::SchedulerConfigFields(), "traversal"),
           Ranges(c.traversal.budget, std::span<const Field<TraversalBudget>>(kBudgetFields),
                  "traversal"),
           Ranges(c.traversal.cfr, traversal::CfrConfigFields(), "traversal"),
           Ranges(c.network, inference::NetworkConfigFields(), "network"),
           Ranges(c.inference, inference::InferenceConfigFields(), "inference"),
           Ranges(c.memory, std::span<const Field<MemoryConfig>>(kMemoryFields), "memory"),
           Ranges(c.training, std::span<const Field<OptimizerConfig>>(kOptimizerFields),
                  "training"),
           Ranges(c.evaluation, std::span<const Field<EvaluationConfig>>(kEvaluationFields),
                  "evaluation"),
           Ranges(c.distributed, std::span<const Field<DistributedConfig>>(kDistributedFields),
                  "distributed"),
       }) {
    if (!s.ok()) return s;
  }
  if (c.traversal.cfr.tail_cap > 0 && c.traversal.cfr.scheme != traversal::Scheme::kValue) {
    return absl::InvalidArgumentError(
        lcfr::StrCat("traversal.tail_cap: ", c.traversal.cfr.tail_cap,
                     " needs scheme value (the cut leaf is the value network's estimate), not ",
                     traversal::SchemeName(c.traversal.cfr.scheme)));
  }
  if (c.network.architecture == inference::Architecture::kCards &&
      c.run.game != GameId::kLostCities) {
    return absl::InvalidArgumentError(
        lcfr::StrCat("network.architecture: cards is for Lost Cities, run.game is ",
                     GameName(c.run.game), " (use mlp)"));
  }
  if (absl::Status s = c.play.Validate(); !s.ok()) return s;
  if (c.evaluation.policies.empty()) {
    return absl::InvalidArgumentError("evaluation.policies: at least one policy");
  }
  for (const std::string& name : c.evaluation.policies) {
    if (absl::StatusOr<play::PlayPolicy> p = play::PlayPolicy::Parse(name); !p.ok()) {
      return absl::InvalidArgumentError(
          lcfr::StrCat("evaluation.policies: ", p.status().message()));
    }
  }
  for (const std::string& name : c.evaluation.opponents) {
    if (!play::MakeBot(name).ok()) {
      return absl::InvalidArgumentError(lcfr::StrCat("evaluation.opponents: unknown bot '", name,
                                                     "' (known: ", Join(play::BotNames()), ")"));
    }
  }
  return absl::OkStatus();
}

std::string DumpConfig(const TrainConfig& config) {
  std::string out = "# Resolved configuration (lcfr train). Every key, with its meaning.\n";
  std::string section;
  for (const ConfigField& f : ConfigFields()) {
    if (f.section != section) {
      section = f.section;
      out += lcfr::StrCat("\n", section, ":\n");
    }
    out += lcfr::StrCat("  ", f.key, ": ", f.value(config), "  # ", f.help, "\n");
  }
  return out;
}

const std::string& EmbeddedDefaultConfig() {
  static const std::string text = kDefaultConfigYaml;
  return text;
}

}  // namespace lcfr::training
