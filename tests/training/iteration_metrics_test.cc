// IterationMetrics: one struct for metrics.jsonl, the progress line and lcfr plot.
#include "training/iteration_metrics.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace lcfr::training {
namespace {

TEST_CASE("IterationMetrics: a line round-trips, and bad lines name the key", "[metrics]") {
  IterationMetrics m;
  m.iteration = 4;
  m.value_loss = 0.5;
  m.eval = std::vector<BotResult>{{"random", 0.9, 0.85, 0.94, 30.5, 200, 1},
                                  {"discard-only", 0.1, 0.07, 0.14, -20, 200, 0}};
  m.time.traversal = 2.5;
  m.time.checkpoint = 0.25;
  m.advantage_loss = {0.125, 0.25};
  m.samples[traversal::SampleKind::kValue] = 17;
  m.digest = {"00000000000000ab", "00000000000000cd"};
  m.memory.advantage = {3, 4};
  m.memory.value = 9;
  m.weights_checksum = "ff";
  const std::string line = m.ToJsonLine();
  auto back = IterationMetrics::FromJsonLine(line);
  REQUIRE(back.ok());
  CHECK(back->ToJsonLine() == line);
  CHECK(back->eval->at(1).opponent == "discard-only");         // order kept
  CHECK(line.find("\"strategy_loss\"") == std::string::npos);  // absent, not null
  CHECK_THAT(ProgressLine(*back, 10, 65), Catch::Contains("iter 4/10 | 1m5s/it | ETA 6m30s"));
  CHECK_THAT(ProgressLine(*back, 10, 65), Catch::Contains("| value loss 0.5 | vs random 0.9"));
  CHECK_THAT(std::string(IterationMetrics::FromJsonLine("{\"iteration\": 1}").status().message()),
             Catch::Contains("key advantage_loss"));
  // A line of an earlier version, without the newer keys, still reads.
  auto old = IterationMetrics::FromJsonLine(
      "{\"iteration\": 2, \"advantage_loss\": [0.5, 0.25], \"policy_calls_per_s\": 9}");
  REQUIRE(old.ok());
  CHECK(old->policy_calls_per_s == 9);
  CHECK(!old->eval.has_value());
  CHECK_THAT(std::string(IterationMetrics::FromJsonLine(
                             "{\"iteration\": 2, \"advantage_loss\": [0.5, 0.25], \"time\": 3}")
                             .status()
                             .message()),
             Catch::Contains("key time (of the wrong type)"));
  CHECK_THAT(std::string(IterationMetrics::FromJsonLine("[1, 2]").status().message()),
             Catch::Contains("expected a JSON object"));
  std::string bad = line;
  bad.replace(bad.find("\"advantage_loss\":[0.125,0.25]"), 29, "\"advantage_loss\":\"x\"");
  CHECK_THAT(std::string(IterationMetrics::FromJsonLine(bad).status().message()),
             Catch::Contains("advantage_loss"));
}

}  // namespace
}  // namespace lcfr::training
