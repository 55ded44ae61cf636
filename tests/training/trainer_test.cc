// The trainer end to end: Deep CFR on Kuhn reaches low exact exploitability; a Lost Cities
// smoke run writes every artefact; a resumed run equals an uninterrupted one (each scheme with
// its own memories).
#include "training/trainer.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/files.h"
#include "nlohmann/json.hpp"
#include "training/config.h"

namespace lcfr::training {
namespace {

std::string Source(const std::string& name) { return std::string(LCFR_SOURCE_DIR) + "/" + name; }

std::string TempDir() {
  char name[] = "/tmp/lcfr_trainer_test_XXXXXX";
  return ::mkdtemp(name);
}

std::vector<nlohmann::json> Metrics(const std::string& run_dir) {
  std::ifstream in(run_dir + "/metrics.jsonl");
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  }
  return lines;
}

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

// configs/smoke.yaml with `scheme`, into a fresh temporary run directory, without progress.
TrainOptions SmokeOptions(const std::string& scheme) {
  auto config = LoadConfigFile(Source("configs/smoke.yaml"));
  REQUIRE(config.ok());
  config->traversal.cfr.scheme = *traversal::ParseScheme(scheme);
  TrainOptions options;
  options.config = *config;
  options.run_dir = TempDir();
  options.progress = false;
  return options;
}

TEST_CASE("Trainer: Deep CFR on Kuhn reaches exploitability < 0.05", "[trainer]") {
  auto config = LoadConfigFile(Source("configs/kuhn.yaml"));
  REQUIRE(config.ok());
  TrainOptions options;
  options.config = *config;
  options.run_dir = TempDir();
  options.progress = false;
  REQUIRE(Train(options).ok());
  const auto metrics = Metrics(options.run_dir);
  REQUIRE(metrics.size() == static_cast<size_t>(config->run.iterations));
  REQUIRE(metrics.back().contains("exploitability"));
  const double exploitability = metrics.back()["exploitability"];
  WARN("Kuhn Deep CFR (configs/kuhn.yaml): exploitability " << exploitability);
  CHECK(exploitability < 0.05);
  // summary.json: the final and the best evaluation with their iterations, over metrics.jsonl.
  nlohmann::json summary = nlohmann::json::parse(std::ifstream(options.run_dir + "/summary.json"));
  CHECK(summary["measure"] == "exploitability");
  CHECK(summary["final_evaluation"]["iteration"] == config->run.iterations);
  CHECK(summary["final_evaluation"]["exploitability"].get<double>() == exploitability);
  double best = 1e9;
  int best_iteration = 0;
  for (const auto& line : metrics) {
    if (line.contains("exploitability") && line["exploitability"].get<double>() < best) {
      best = line["exploitability"];
      best_iteration = line["iteration"];
    }
  }
  CHECK(summary["best_evaluation"]["iteration"] == best_iteration);
  CHECK(summary["best_evaluation"]["exploitability"].get<double>() == best);
  char last[32];
  std::snprintf(last, sizeof last, "iter_%06d", config->run.iterations);
  CHECK(summary["checkpoint"].get<std::string>().ends_with(last));
  CHECK(RemoveTree(options.run_dir).ok());
}

TEST_CASE("Trainer: a Lost Cities smoke run writes every artefact", "[trainer]") {
  const std::string scheme = GENERATE("hybrid", "value", "escher");
  INFO("scheme " << scheme);
  TrainOptions options = SmokeOptions(scheme);
  REQUIRE(Train(options).ok());
  const auto metrics = Metrics(options.run_dir);
  REQUIRE(metrics.size() == 4);
  for (const auto& line : metrics) {
    for (const char* key : {"iteration", "time", "traversals_per_s", "policy_calls_per_s",
                            "rows_per_forward", "advantage_loss", "memory", "samples"}) {
      CHECK(line.contains(key));
    }
  }
  CHECK(metrics[1].contains("eval"));
  CHECK(metrics[1]["eval"]["random"]["games"] == 20);
  CHECK(metrics[1].contains("strategy_loss"));
  const bool value = scheme == "value" || scheme == "escher";  // both train a value network
  CHECK(metrics[1].contains("value_loss") == value);
  CHECK((metrics[1]["samples"]["value"].get<int64_t>() > 0) == value);
  CHECK(Exists(options.run_dir + "/checkpoints/iter_000004/value.s0.mem") == value);
  CHECK(Exists(options.run_dir + "/config.yaml"));
  CHECK(Exists(options.run_dir + "/summary.json"));
  CHECK(Exists(options.run_dir + "/checkpoints/iter_000004/networks.pt"));
  CHECK(!Exists(options.run_dir + "/checkpoints/iter_000002/networks.pt"));  // keep_every 0
  std::ifstream latest(options.run_dir + "/checkpoints/LATEST");
  std::string name;
  latest >> name;
  CHECK(name == "iter_000004");
  // A second run into the same directory is refused.
  const absl::Status again = Train(options);
  CHECK_THAT(std::string(again.message()), Catch::Contains("already holds a run"));
  CHECK(RemoveTree(options.run_dir).ok());
}

TEST_CASE("Trainer: kept checkpoints keep their networks, not their memories", "[trainer]") {
  TrainOptions options = SmokeOptions("hybrid");
  options.config.run.checkpoint_every = 1;
  options.config.run.keep_every = 2;
  REQUIRE(Train(options).ok());
  const std::string base = options.run_dir + "/checkpoints/";
  CHECK(Exists(base + "iter_000002/networks.pt"));
  CHECK(Exists(base + "iter_000002/state.json"));
  CHECK(!Exists(base + "iter_000002/strategy.s0.mem"));
  CHECK(!Exists(base + "iter_000002/advantage0.s0.mem"));
  CHECK(!Exists(base + "iter_000001/networks.pt"));
  CHECK(!Exists(base + "iter_000003/networks.pt"));
  CHECK(Exists(base + "iter_000004/strategy.s0.mem"));  // the latest: resumable
  // ... and it wrote only what changed since iteration 3: a later segment of the chain.
  CHECK(Exists(base + "iter_000004/strategy.s1.mem"));
  CHECK(RemoveTree(options.run_dir).ok());
}

TEST_CASE("Trainer: a resumed run continues exactly where it stopped", "[trainer]") {
  // escher: its value memory and value network are restored as well as the value scheme's.
  const std::string scheme = GENERATE("hybrid", "value", "escher");
  INFO("scheme " << scheme);
  const TrainOptions straight = SmokeOptions(scheme);
  REQUIRE(Train(straight).ok());

  TrainOptions interrupted = straight;
  interrupted.run_dir = TempDir();
  interrupted.stop_after = 3;  // stops after iteration 3; the checkpoint is from iteration 2
  REQUIRE(Train(interrupted).ok());
  CHECK(Metrics(interrupted.run_dir).size() == 3);
  TrainOptions resumed = interrupted;
  resumed.stop_after = 0;
  resumed.resume = true;
  REQUIRE(Train(resumed).ok());

  const auto a = Metrics(straight.run_dir);
  const auto b = Metrics(interrupted.run_dir);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("iteration " << i + 1);
    CHECK(a[i]["advantage_loss"] == b[i]["advantage_loss"]);
    CHECK(a[i].value("value_loss", -1.0) == b[i].value("value_loss", -1.0));
    CHECK(a[i]["samples"] == b[i]["samples"]);
    CHECK(a[i]["memory"] == b[i]["memory"]);
    if (a[i].contains("eval")) CHECK(a[i]["eval"] == b[i]["eval"]);
  }
  for (const auto& dir : {straight.run_dir, interrupted.run_dir}) {
    CHECK(RemoveTree(dir).ok());
  }
}

}  // namespace
}  // namespace lcfr::training
