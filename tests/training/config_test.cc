#include "training/config.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

namespace lcfr::training {
namespace {

std::string Source(const std::string& name) { return std::string(LCFR_SOURCE_DIR) + "/" + name; }

bool Same(const TrainConfig& a, const TrainConfig& b) { return DumpConfig(a) == DumpConfig(b); }

TEST_CASE("Config: configs/default.yaml is the embedded default and equals the struct defaults",
          "[config]") {
  auto file = LoadConfigFile(Source("configs/default.yaml"));
  REQUIRE(file.ok());
  CHECK(Same(*file, TrainConfig{}));
  auto embedded = ParseConfig(EmbeddedDefaultConfig(), "embedded");
  REQUIRE(embedded.ok());
  CHECK(Same(*embedded, TrainConfig{}));
  CHECK(Validate(*file).ok());
}

TEST_CASE("Config: every shipped config parses and validates", "[config]") {
  for (const char* name : {"default", "smoke", "kuhn", "leduc", "gpu", "strong", "strong-gpu",
                           "strong-6", "strong-gpu-6"}) {
    INFO(name);
    auto config = LoadConfigFile(Source(std::string("configs/") + name + ".yaml"));
    REQUIRE(config.ok());
    // Validation never probes the hardware: gpu.yaml is valid on a machine without a GPU too
    // (the composition root says there that the device is missing).
    CHECK(Validate(*config).ok());
  }
}

TEST_CASE("Config: the traversals' tail_cap needs the value scheme", "[config]") {
  auto config = ParseConfig("traversal:\n  scheme: hybrid\n  tail_cap: 200\n", "x.yaml");
  REQUIRE(config.ok());
  CHECK_THAT(std::string(Validate(*config).message()),
             Catch::Contains("traversal.tail_cap: 200 needs scheme value"));
  config = ParseConfig("traversal:\n  tail_cap: 200\n", "x.yaml");
  REQUIRE(config.ok());
  CHECK(Validate(*config).ok());
}

TEST_CASE("Config: unknown keys and bad values are errors naming them", "[config]") {
  auto unknown = ParseConfig("traversal:\n  widht: 3\n", "x.yaml");
  REQUIRE(!unknown.ok());
  CHECK_THAT(std::string(unknown.status().message()),
             Catch::Contains("x.yaml:2: unknown key 'traversal.widht'"));
  auto section = ParseConfig("travesal:\n  workers: 3\n", "x.yaml");
  REQUIRE(!section.ok());
  CHECK_THAT(std::string(section.status().message()),
             Catch::Contains("unknown section 'travesal'"));
  auto range = ParseConfig("traversal:\n  workers: 0\n", "x.yaml");
  REQUIRE(!range.ok());
  CHECK_THAT(std::string(range.status().message()),
             Catch::Contains("x.yaml:2: traversal.workers: 0 is out of range [1, 1024]"));
  // A value beyond int's range is out of range, not wrapped into it.
  auto huge = ParseConfig("traversal:\n  workers: 4294967297\n", "x.yaml");
  REQUIRE(!huge.ok());
  CHECK_THAT(std::string(huge.status().message()), Catch::Contains("4294967297 is out of range"));
  auto type = ParseConfig("training:\n  learning_rate: fast\n", "x.yaml");
  REQUIRE(!type.ok());
  CHECK_THAT(std::string(type.status().message()),
             Catch::Contains("training.learning_rate: expected a number, got 'fast'"));
  auto choice = ParseConfig("traversal:\n  scheme: robust\n", "x.yaml");
  REQUIRE(!choice.ok());
  CHECK_THAT(std::string(choice.status().message()),
             Catch::Contains("'robust' is not one of external, outcome, hybrid, value"));
  auto rules = ParseConfig("rules:\n  colors: 9\n", "x.yaml");
  REQUIRE(!rules.ok());
  CHECK_THAT(std::string(rules.status().message()), Catch::Contains("rules.colors"));
  TrainConfig config;
  config.evaluation.opponents = {"random", "grandmaster"};
  CHECK_THAT(std::string(Validate(config).message()), Catch::Contains("unknown bot 'grandmaster'"));
  // A component's range is checked by Validate too, with its section named.
  config = TrainConfig{};
  config.traversal.cfr.epsilon = 0;
  CHECK_THAT(std::string(Validate(config).message()), Catch::Contains("traversal.epsilon = 0"));
  config = TrainConfig{};
  config.inference.max_rows = 0;
  CHECK_THAT(std::string(Validate(config).message()), Catch::Contains("inference.max_rows = 0"));
  // Keys that are not plain words are errors, not crashes.
  auto key = ParseConfig("[run, x]: 3\n", "x.yaml");
  REQUIRE(!key.ok());
  CHECK_THAT(std::string(key.status().message()), Catch::Contains("x.yaml:1: a section name"));
  auto inner = ParseConfig("run:\n  [a]: 3\n", "x.yaml");
  REQUIRE(!inner.ok());
  CHECK_THAT(std::string(inner.status().message()), Catch::Contains("run: a key must be"));
  // Duplicates are errors naming both lines (YAML maps keep them; the last used to win).
  auto twice = ParseConfig("run:\n  iterations: 3\nrun:\n  seed: 4\n", "x.yaml");
  REQUIRE(!twice.ok());
  CHECK_THAT(std::string(twice.status().message()),
             Catch::Contains("x.yaml:3: 'run' appears twice (first at x.yaml:1)"));
  auto key_twice = ParseConfig("run:\n  iterations: 3\n  seed: 2\n  iterations: 4\n", "x.yaml");
  REQUIRE(!key_twice.ok());
  CHECK_THAT(std::string(key_twice.status().message()),
             Catch::Contains("x.yaml:4: 'run.iterations' appears twice (first at x.yaml:2)"));
  auto opponents = ParseConfig("evaluation:\n  opponents: [{a: 1}]\n", "x.yaml");
  REQUIRE(!opponents.ok());
  CHECK_THAT(std::string(opponents.status().message()),
             Catch::Contains("x.yaml:2: evaluation.opponents: expected a list of strings"));
  // A directory is not a config (it used to read as an empty file: the default config).
  auto directory = LoadConfigFile(".");
  REQUIRE(!directory.ok());
  CHECK_THAT(std::string(directory.status().message()),
             Catch::Contains(".: is a directory, not a config file"));
}

TEST_CASE("Config: every field belongs to one component table, enums parse through their names",
          "[config]") {
  // The two flush-related settings have distinct names; the old shared name still loads.
  TrainConfig config;
  REQUIRE(ApplyOverride(config, "traversal.flush_size=32").ok());
  REQUIRE(ApplyOverride(config, "inference.max_rows=256").ok());
  CHECK(config.traversal.scheduler.flush_size == 32);
  CHECK(config.inference.max_rows == 256);
  auto old = ParseConfig("traversal:\n  max_batch: 16\ninference:\n  max_batch: 64\n", "old.yaml");
  REQUIRE(old.ok());
  CHECK(old->traversal.scheduler.flush_size == 16);
  CHECK(old->inference.max_rows == 64);
  REQUIRE(ApplyOverride(config, "traversal.scheme=outcome").ok());
  CHECK(config.traversal.cfr.scheme == traversal::Scheme::kOutcome);
  REQUIRE(ApplyOverride(config, "training.device=auto").ok());
  CHECK(config.training.device == inference::Device::kAuto);
  REQUIRE(ApplyOverride(config, "run.game=leduc").ok());
  CHECK(config.run.game == GameId::kLeduc);
  // Every (section, key) is unique, and the dump names every field once.
  std::set<std::string> names;
  for (const ConfigField& f : ConfigFields()) CHECK(names.insert(f.name()).second);
  const std::string dump = DumpConfig(config);
  CHECK_THAT(dump, Catch::Contains("  flush_size: 32  #"));
  CHECK_THAT(dump, Catch::Contains("  scheme: outcome  #"));
  CHECK_THAT(dump, Catch::Contains("  game: leduc  #"));
  CHECK(dump.find("max_batch") == std::string::npos);
}

TEST_CASE("Config: --set overrides one key, with the same checks", "[config]") {
  TrainConfig config;
  REQUIRE(ApplyOverride(config, "run.iterations=7").ok());
  CHECK(config.run.iterations == 7);
  REQUIRE(ApplyOverride(config, "evaluation.opponents=random,discard-only").ok());
  CHECK(config.evaluation.opponents == std::vector<std::string>{"random", "discard-only"});
  REQUIRE(ApplyOverride(config, "inference.cuda_graphs=true").ok());
  CHECK(config.inference.cuda_graphs);
  CHECK_THAT(std::string(ApplyOverride(config, "run.iterations=0").message()),
             Catch::Contains("run.iterations: 0 is out of range"));
  CHECK_THAT(std::string(ApplyOverride(config, "iterations=3").message()),
             Catch::Contains("expected section.key=value"));
  CHECK_THAT(std::string(ApplyOverride(config, "run.iteration=3").message()),
             Catch::Contains("unknown key 'run.iteration'"));
  // The dump parses back to the same configuration.
  auto round_trip = ParseConfig(DumpConfig(config), "dump");
  REQUIRE(round_trip.ok());
  CHECK(Same(*round_trip, config));
}

}  // namespace
}  // namespace lcfr::training
