// IterationMetrics: one struct for metrics.jsonl, the progress line and lcfr plot.
#include "training/iteration_metrics.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

namespace lcfr::training {
namespace {

TEST_CASE("IterationMetrics: a line round-trips, and bad lines name the key", "[metrics]") {
  IterationMetrics m;
  m.iteration = 4;
  m.value_loss = 0.5;
  auto bot = [](std::string opponent, std::string policy, double win_rate) {
    BotResult r;
    r.opponent = std::move(opponent);
    r.policy = std::move(policy);
    r.win_rate = win_rate;
    r.ci_low = win_rate - 0.05;
    r.ci_high = win_rate + 0.04;
    r.games = 200;
    r.colors_opened = 2.5;
    r.score_per_color = 12.25;
    r.positive_share = 0.75;
    r.wagers_below_cost = 0.5;
    r.fallback_rate = 0.125;
    return r;
  };
  m.eval = std::vector<BotResult>{bot("random", "", 0.9), bot("discard-only", "", 0.1),
                                  bot("random", "current-greedy", 0.95),
                                  bot("discard-only", "current-greedy", 0.25)};
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
  CHECK(back->eval->at(1).opponent == "discard-only");  // order kept
  // eval.<bot> for the default policy, eval.<policy>.<bot> for a policy, with the expedition
  // statistics, and the fallback rate for a current (regret-matching) policy only.
  REQUIRE(back->eval->size() == 4);
  CHECK(back->eval->at(3).policy == "current-greedy");
  CHECK(back->eval->at(3).win_rate == 0.25);
  CHECK(back->eval->at(3).fallback_rate == 0.125);
  CHECK(back->eval->at(0).fallback_rate == 0.0);
  CHECK(back->eval->at(0).positive_share == 0.75);
  CHECK_THAT(line, Catch::Contains("\"current-greedy\":{\"random\":{\"win_rate\":0.95"));
  CHECK_THAT(ProgressLine(*back, 10, 65), !Catch::Contains("0.95"));
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

TEST_CASE("RunOutcome: the final and the best evaluation with their iterations", "[metrics]") {
  RunOutcome toy;
  CHECK(toy.Line() == "no evaluation");
  for (const auto& [iteration, exploitability] :
       std::vector<std::pair<int, double>>{{10, 0.3}, {20, 0.12}, {25, -1}, {30, 0.2}}) {
    IterationMetrics m;
    m.iteration = iteration;
    if (exploitability >= 0) m.exploitability = exploitability;  // iteration 25: no evaluation
    toy.Add(m);
  }
  REQUIRE(toy.final_point().has_value());
  CHECK(toy.final_point()->iteration == 30);
  CHECK(toy.best_point()->iteration == 20);  // lower is better
  CHECK(toy.best_point()->eval_json == R"({"exploitability":0.12})");
  CHECK(toy.Line() == "final exploitability 0.2 at iteration 30, best 0.12 at iteration 20");

  RunOutcome cards;  // Lost Cities: the mean win rate of the default policy, higher is better
  auto eval = [](int iteration, double a, double b, double other_policy) {
    IterationMetrics m;
    m.iteration = iteration;
    BotResult r;
    r.opponent = "random";
    r.win_rate = a;
    BotResult s = r;
    s.opponent = "heuristic-cautious";
    s.win_rate = b;
    BotResult t = r;
    t.policy = "average";
    t.win_rate = other_policy;  // another policy's games do not count
    m.eval = std::vector<BotResult>{r, s, t};
    return m;
  };
  cards.Add(eval(5, 0.9, 0.3, 1.0));
  cards.Add(eval(10, 0.95, 0.45, 0.0));
  cards.Add(eval(15, 0.9, 0.4, 1.0));
  CHECK(cards.measure() == "mean win rate");
  CHECK(cards.best_point()->iteration == 10);
  CHECK(cards.best_point()->score == Approx(0.7));
  CHECK(cards.final_point()->iteration == 15);
  CHECK(cards.final_point()->score == Approx(0.65));
}

}  // namespace
}  // namespace lcfr::training
