// The CFR traversals: determinism across widths and workers, unbiased regret estimates on Kuhn
// and Leduc against the exact solver, sample accounting, the decision cap and stack depth.
#include "traversal/cfr.h"

#include <array>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/exact.h"
#include "engine/kuhn.h"
#include "engine/leduc.h"
#include "engine/lost_cities.h"
#include "tests/traversal/cfr_test_util.h"
#include "traversal/evaluators.h"
#include "traversal/runner.h"

namespace lcfr::traversal {
namespace {

using engine::KuhnPoker;
using engine::LeducPoker;
using engine::LostCities;
using namespace testing;

TEST_CASE("Traversal: samples are bit-identical for every width and worker count", "[cfr]") {
  LostCities game;
  RunnerConfig base = PlainRunner();
  base.seed = 99;
  base.cfr.hybrid_depth = 1;
  base.cfr.hybrid_epsilon = 0.1;
  SECTION("hybrid") { base.cfr.scheme = Scheme::kHybrid; }
  SECTION("value") {
    base.cfr.scheme = Scheme::kValue;
    base.cfr.value_from_iteration = 1;
    base.cfr.value_sample_rate = 0.3;
  }
  auto factory = [&](int) {
    return std::make_unique<PseudoNetworkEvaluator>(game.EncodingSize(), game.num_actions(), 5);
  };
  const int64_t count = 10;
  RunnerConfig recursive = base;
  recursive.scheduling = Scheduling::kDirect;
  WorkerStats reference_stats;
  const CollectingSink reference = RunOnce(game, recursive, 3, 1, count, factory, &reference_stats);
  REQUIRE(reference[SampleKind::kAdvantage].size() > 0);
  REQUIRE(reference[SampleKind::kStrategy].size() > 0);
  CHECK(reference_stats.advantage_samples ==
        static_cast<int64_t>(reference[SampleKind::kAdvantage].size()));
  CHECK(reference_stats.strategy_samples ==
        static_cast<int64_t>(reference[SampleKind::kStrategy].size()));
  CHECK(reference_stats.value_samples ==
        static_cast<int64_t>(reference[SampleKind::kValue].size()));
  CHECK(reference[SampleKind::kValue].empty() == (base.cfr.scheme != Scheme::kValue));
  CHECK(reference_stats.traversals == count);
  // Samples arrive in traversal order, each traversal's once.
  for (size_t i = 1; i < reference[SampleKind::kAdvantage].size(); ++i) {
    REQUIRE(reference[SampleKind::kAdvantage].traversal(i - 1) <=
            reference[SampleKind::kAdvantage].traversal(i));
  }
  CHECK(reference[SampleKind::kAdvantage].traversal(0) == 0);
  CHECK(reference[SampleKind::kAdvantage].traversal(reference[SampleKind::kAdvantage].size() - 1) ==
        count - 1);
  for (auto [width, workers] : {std::pair{1, 1}, {7, 1}, {64, 1}, {7, 2}, {64, 2}}) {
    RunnerConfig config = base;
    config.worker_chunk_size = width;
    config.workers = workers;
    WorkerStats stats;
    const CollectingSink sink = RunOnce(game, config, 3, 1, count, factory, &stats);
    INFO("width " << width << ", workers " << workers);
    CHECK(sink[SampleKind::kAdvantage] == reference[SampleKind::kAdvantage]);
    CHECK(sink[SampleKind::kStrategy] == reference[SampleKind::kStrategy]);
    CHECK(sink[SampleKind::kValue] == reference[SampleKind::kValue]);
    CHECK(stats.nodes == reference_stats.nodes);
    CHECK(stats.policy_calls == reference_stats.policy_calls);
  }
  // A different iteration, player or seed gives different samples.
  CHECK(!(RunOnce(game, recursive, 4, 1, count, factory)[SampleKind::kAdvantage] ==
          reference[SampleKind::kAdvantage]));
  RunnerConfig other_seed = recursive;
  other_seed.seed = 100;
  CHECK(!(RunOnce(game, other_seed, 3, 1, count, factory)[SampleKind::kAdvantage] ==
          reference[SampleKind::kAdvantage]));
}

// The action history of a toy-game state, and its deal.
std::vector<int> Actions(const KuhnPoker::State& s) {
  return std::vector<int>(s.history.begin(), s.history.begin() + s.length);
}
KuhnPoker::State Deal(const KuhnPoker::State& s) {
  return KuhnPoker::DealCards(s.card[0], s.card[1]);
}
std::vector<int> Actions(const LeducPoker::State& s) {
  std::vector<int> actions;
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < s.length[round]; ++i) actions.push_back(s.actions[round][i]);
  }
  return actions;
}
LeducPoker::State Deal(const LeducPoker::State& s) {
  return LeducPoker::DealCards(s.card[0], s.card[1], s.card[2]);
}

// c(I) of random starts (traversal/cfr.h): the probability-weighted count of prefixes, with
// the traverser uniform in the prefix, after which the scheme records a sample at I.
template <typename G>
double StartFactor(const G& game, const CfrConfig& cfr, int traverser,
                   const typename G::State& representative) {
  const std::vector<int> actions = Actions(representative);
  const int n = static_cast<int>(actions.size());
  std::vector<int> player(n), legal_count(n);
  typename G::State s = Deal(representative);
  for (int k = 0; k < n; ++k) {
    player[k] = game.CurrentPlayer(s);
    legal_count[k] = std::popcount(game.LegalMask(s));
    game.ApplyUnchecked(s, actions[k]);
  }
  double c = 0;
  double prefix_probability = 1;  // the traverser's uniform choices among the first l actions
  for (int l = 0; l <= std::min(n, cfr.start_depth_max); ++l) {
    if (l > 0 && player[l - 1] == traverser) prefix_probability /= legal_count[l - 1];
    int depth = 0;  // traverser decisions between the start and I
    for (int k = l; k < n; ++k) depth += player[k] == traverser;
    const bool hybrid = cfr.scheme == Scheme::kHybrid || cfr.scheme == Scheme::kValue;
    const bool recorded = !hybrid || depth < cfr.hybrid_depth;
    if (recorded) c += prefix_probability / (cfr.start_depth_max + 1);
  }
  return c;
}

template <typename G>
void CheckUnbiased(const G& game, const CfrConfig& cfr, int64_t traversals, int traverser,
                   size_t expected_infosets) {
  RunnerConfig config = PlainRunner();
  config.seed = 2024;
  config.worker_chunk_size = 16;
  config.cfr = cfr;
  const CollectingSink sink = RunOnce(game, config, 1, traverser, traversals,
                                      [](int) { return std::make_unique<HashedEvaluator>(); });
  for (size_t i = 0; i < sink[SampleKind::kAdvantage].size(); ++i)
    REQUIRE(sink[SampleKind::kAdvantage].player(i) == traverser);
  const int n = game.num_actions();
  const auto estimates = PerInfosetMeans(sink[SampleKind::kAdvantage], traversals);

  engine::ExactSolver<G> solver(game);
  const double scale = cfr.payoff_scale > 0 ? cfr.payoff_scale : game.DefaultPayoffScale();
  const auto exact = solver.CounterfactualRegrets(HashedPolicy(game), traverser);
  const auto wrong = solver.CounterfactualRegrets(
      [&](const auto& s, std::span<float> out) {
        const uint32_t legal = game.LegalMask(s);
        for (int a = 0; a < n; ++a)
          out[a] = (legal >> a & 1) ? 1.0f / static_cast<float>(std::popcount(legal)) : 0.0f;
      },
      traverser);
  std::unordered_map<std::string, double> factor;
  for (const auto& infoset : solver.infosets()) {
    if (infoset.player != traverser) continue;
    factor[infoset.key] =
        cfr.start_depth_max > 0 ? StartFactor(game, cfr, traverser, infoset.representative) : 1.0;
  }
  CHECK(estimates.size() == expected_infosets);
  int mismatches_with_wrong_policy = 0;
  double worst = 0;
  for (const auto& [key, e] : estimates) {
    REQUIRE(exact.count(key) == 1);
    for (int a = 0; a < n; ++a) {
      const double mean = e.mean[a], se = e.se[a];
      const double expected = factor.at(key) * exact.at(key)[a] / scale;
      const double z = std::abs(mean - expected) / (se + 1e-5);
      worst = std::max(worst, z);
      CHECK(std::abs(mean - expected) <= 5 * se + 1e-5);
      const double wrong_expected = factor.at(key) * wrong.at(key)[a] / scale;
      if (std::abs(mean - wrong_expected) > 5 * se + 1e-5) ++mismatches_with_wrong_policy;
    }
  }
  INFO("largest deviation " << worst << " standard errors over " << estimates.size()
                            << " infosets");
  CHECK(worst < 5);
  // The check has power: the regrets of a different policy are rejected.
  CHECK(mismatches_with_wrong_policy > 0);
}

TEST_CASE("Traversal: sampled regrets are unbiased on Kuhn, every scheme", "[cfr][unbiased]") {
  KuhnPoker game;
  CfrConfig cfr = FullRecordingCfrConfig();
  SECTION("external") {
    cfr.scheme = Scheme::kExternal;
    for (int traverser : {0, 1}) CheckUnbiased(game, cfr, 20000, traverser, 6);
  }
  SECTION("outcome") {
    cfr.scheme = Scheme::kOutcome;
    cfr.epsilon = 0.6;
    for (int traverser : {0, 1}) CheckUnbiased(game, cfr, 40000, traverser, 6);
  }
  SECTION("hybrid, first decision expanded") {
    cfr.scheme = Scheme::kHybrid;
    cfr.hybrid_depth = 1;
    cfr.hybrid_epsilon = 0.3;
    // Player 0 decides twice (its second decision is beyond the expanded depth), player 1 once.
    CheckUnbiased(game, cfr, 20000, 0, 3);
    CheckUnbiased(game, cfr, 20000, 1, 6);
  }
  SECTION("hybrid, one of two actions sampled") {
    cfr.scheme = Scheme::kHybrid;
    cfr.hybrid_depth = 2;
    cfr.hybrid_actions = 1;
    for (int traverser : {0, 1}) CheckUnbiased(game, cfr, 40000, traverser, 6);
  }
  SECTION("value, before its tail samples start: the hybrid's expanded samples") {
    cfr.scheme = Scheme::kValue;
    cfr.hybrid_depth = 1;
    cfr.hybrid_epsilon = 0.3;
    cfr.value_from_iteration = 2;  // CheckUnbiased runs iteration 1
    CheckUnbiased(game, cfr, 20000, 0, 3);
    CheckUnbiased(game, cfr, 20000, 1, 6);
  }
}

TEST_CASE("Traversal: sampled regrets are unbiased on Leduc", "[cfr][unbiased]") {
  LeducPoker game;
  engine::ExactSolver<LeducPoker> solver(game);
  size_t infosets[2] = {0, 0};
  for (const auto& infoset : solver.infosets()) ++infosets[infoset.player];
  CfrConfig cfr = FullRecordingCfrConfig();
  SECTION("external") {
    cfr.scheme = Scheme::kExternal;
    CheckUnbiased(game, cfr, 30000, 0, infosets[0]);
    CheckUnbiased(game, cfr, 30000, 1, infosets[1]);
  }
  SECTION("hybrid: two decisions, two actions each, then sampled") {
    cfr.scheme = Scheme::kHybrid;
    cfr.hybrid_depth = 2;
    cfr.hybrid_actions = 2;
    cfr.hybrid_epsilon = 0.2;
    for (int traverser = 0; traverser < 2; ++traverser) {
      // Infosets at the traverser's first two decisions.
      RunnerConfig config = PlainRunner();
      config.cfr = cfr;
      const auto sink = RunOnce(game, config, 1, traverser, 2000,
                                [](int) { return std::make_unique<HashedEvaluator>(); });
      std::map<std::string, int> seen;
      for (size_t i = 0; i < sink[SampleKind::kAdvantage].size(); ++i) {
        ++seen[engine::InfosetKey(traverser, sink[SampleKind::kAdvantage].features(i))];
      }
      CHECK(seen.size() < infosets[traverser]);
      CheckUnbiased(game, cfr, 60000, traverser, seen.size());
    }
  }
  SECTION("outcome") {
    cfr.scheme = Scheme::kOutcome;
    cfr.epsilon = 0.6;
    for (int traverser : {0, 1}) CheckUnbiased(game, cfr, 100000, traverser, infosets[traverser]);
  }
  SECTION("hybrid with random starts covers every infoset, each scaled by its c(I)") {
    cfr.scheme = Scheme::kHybrid;
    cfr.hybrid_depth = 1;
    cfr.hybrid_epsilon = 0.1;
    cfr.start_depth_max = 6;
    for (int traverser : {0, 1}) CheckUnbiased(game, cfr, 160000, traverser, infosets[traverser]);
  }
  SECTION("external with random starts") {
    cfr.scheme = Scheme::kExternal;
    cfr.start_depth_max = 3;
    for (int traverser : {0, 1}) CheckUnbiased(game, cfr, 50000, traverser, infosets[traverser]);
  }
}

// Answers the advantage networks with HashedStrategy and the value network with the exact
// action values of HashedStrategy for `traverser` (the only player whose values are asked).
template <typename G>
class ExactValueEvaluator : public Evaluator {
 public:
  ExactValueEvaluator(const G& game, int traverser)
      : traverser_(traverser),
        scale_(game.DefaultPayoffScale()),
        values_(engine::ExactSolver<G>(game).ActionValues(HashedPolicy(game), traverser)) {}
  void Evaluate(std::span<const PolicyRequest> requests) override {
    for (const PolicyRequest& r : requests) {
      if (r.network != kValueNetwork) {
        HashedStrategy(r.network, r.features, r.legal_mask, r.output);
        continue;
      }
      const auto& q = values_.at(engine::InfosetKey(traverser_, r.features)).q;
      for (size_t a = 0; a < r.output.size(); ++a) {
        r.output[a] = (r.legal_mask >> a & 1) ? static_cast<float>(q[a] / scale_) : 0.0f;
      }
    }
  }

 private:
  int traverser_;
  double scale_;
  std::unordered_map<std::string, typename engine::ExactSolver<G>::ActionValue> values_;
};

TEST_CASE("Traversal: the value scheme's samples on Leduc, against exact action values",
          "[cfr][unbiased]") {
  LeducPoker game;
  engine::ExactSolver<LeducPoker> solver(game);
  const int n = game.num_actions();
  RunnerConfig config = PlainRunner();
  config.seed = 77;
  config.worker_chunk_size = 16;
  config.cfr.scheme = Scheme::kValue;
  config.cfr.value_from_iteration = 1;
  config.cfr.hybrid_epsilon = 0.2;
  const int hybrid_depth = GENERATE(0, 1);
  config.cfr.hybrid_depth = hybrid_depth;
  INFO("hybrid_depth " << hybrid_depth);
  for (int traverser : {0, 1}) {
    INFO("traverser " << traverser);
    const auto exact = solver.ActionValues(HashedPolicy(game), traverser);
    const auto uniform = solver.ActionValues(
        [&](const auto& s, std::span<float> out) {
          const uint32_t legal = game.LegalMask(s);
          for (int a = 0; a < n; ++a)
            out[a] = (legal >> a & 1) ? 1.0f / static_cast<float>(std::popcount(legal)) : 0.0f;
        },
        traverser);
    const int64_t traversals = 30000;
    WorkerStats stats;
    const CollectingSink sink = RunOnce(
        game, config, 1, traverser, traversals,
        [&](int) { return std::make_unique<ExactValueEvaluator<LeducPoker>>(game, traverser); },
        &stats);
    CHECK(stats.value_samples == static_cast<int64_t>(sink[SampleKind::kValue].size()));

    // Tail advantage samples: with exact values, the target is exactly q(a) - sum sigma q (with
    // hybrid_depth 1, the expanded node's samples are sampled estimates instead).
    const double scale = game.DefaultPayoffScale();
    std::vector<float> sigma(n);
    int tail_samples = 0;
    for (size_t i = 0; i < sink[SampleKind::kAdvantage].size(); ++i) {
      const std::string key =
          engine::InfosetKey(traverser, sink[SampleKind::kAdvantage].features(i));
      const uint32_t legal = sink[SampleKind::kAdvantage].legal_mask(i);
      HashedStrategy(traverser, sink[SampleKind::kAdvantage].features(i), legal, sigma);
      const auto& q = exact.at(key).q;
      double node = 0;
      for (int a = 0; a < n; ++a) node += sigma[a] * q[a];
      bool exact_target = true;
      for (int a = 0; a < n; ++a) {
        const double expected = (legal >> a & 1) ? (q[a] - node) / scale : 0.0;
        exact_target &= std::abs(sink[SampleKind::kAdvantage].target(i)[a] - expected) < 1e-5;
      }
      if (hybrid_depth == 0) REQUIRE(exact_target);
      tail_samples += exact_target;
    }
    CHECK(tail_samples > 1000);

    // Value samples: per (infoset, action), the mean is the exact action value.
    std::map<std::pair<std::string, int>, std::pair<double, double>> sums;  // sum, sum of squares
    std::map<std::pair<std::string, int>, int> counts;
    for (size_t i = 0; i < sink[SampleKind::kValue].size(); ++i) {
      const std::string key = engine::InfosetKey(traverser, sink[SampleKind::kValue].features(i));
      for (uint32_t m = sink[SampleKind::kValue].legal_mask(i); m; m &= m - 1) {
        const int a = std::countr_zero(m);
        const double x = sink[SampleKind::kValue].target(i)[a];
        auto& [sum, sum_sq] = sums[{key, a}];
        sum += x, sum_sq += x * x;
        ++counts[{key, a}];
      }
    }
    int checked = 0, rejected_uniform = 0;
    double worst = 0;
    for (const auto& [key_action, sum] : sums) {
      const int count = counts.at(key_action);
      if (count < 30) continue;
      const double mean = sum.first / count;
      const double var = std::max(0.0, sum.second / count - mean * mean);
      const double se = std::sqrt(var / (count - 1));
      const double expected = exact.at(key_action.first).q[key_action.second] / scale;
      worst = std::max(worst, std::abs(mean - expected) / (se + 1e-6));
      CHECK(std::abs(mean - expected) <= 5 * se + 1e-6);
      const double other = uniform.at(key_action.first).q[key_action.second] / scale;
      rejected_uniform += std::abs(mean - other) > 5 * se + 1e-6;
      ++checked;
    }
    INFO("largest deviation " << worst << " standard errors over " << checked << " checks");
    CHECK(checked > 150);
    CHECK(rejected_uniform > 0);
  }
}

TEST_CASE("Traversal: thinning strategy samples keeps their weighted sums unbiased", "[cfr]") {
  LeducPoker game;
  RunnerConfig config = PlainRunner();
  config.seed = 11;
  config.cfr.scheme = Scheme::kExternal;
  const int64_t traversals = 20000;
  auto factory = [](int) { return std::make_unique<HashedEvaluator>(); };
  const auto all = PerInfosetMeans(
      RunOnce(game, config, 1, 0, traversals, factory)[SampleKind::kStrategy], traversals);
  config.cfr.strategy_sample_rate = 0.25;
  WorkerStats stats;
  const CollectingSink thinned = RunOnce(game, config, 1, 0, traversals, factory, &stats);
  const auto estimates = PerInfosetMeans(thinned[SampleKind::kStrategy], traversals);
  CHECK(estimates.size() == all.size());
  CHECK(stats.strategy_samples == static_cast<int64_t>(thinned[SampleKind::kStrategy].size()));
  for (const auto& [key, e] : estimates) {
    REQUIRE(all.count(key) == 1);
    const Estimate& reference = all.at(key);
    for (int a = 0; a < game.num_actions(); ++a) {
      const double se = std::hypot(e.se[a], reference.se[a]);
      CHECK(std::abs(e.mean[a] - reference.mean[a]) <= 5 * se + 1e-6);
    }
  }
}

// Lost Cities policy that loops through the discard piles: discard, then draw from a pile
// whenever one is allowed. Games under it run into the decision cap.
class PileLoopEvaluator : public Evaluator {
 public:
  explicit PileLoopEvaluator(const LostCities* game) : game_(game) {}
  void Evaluate(std::span<const PolicyRequest> requests) override {
    for (const PolicyRequest& r : requests) {
      std::fill(r.output.begin(), r.output.end(), 0.0f);
      uint32_t preferred = 0;
      for (int c = 0; c < game_->rules().colors; ++c)
        preferred |= r.legal_mask & (1u << game_->pile_action(c));
      for (int slot = 0; slot < game_->rules().hand_size; ++slot)
        preferred |= r.legal_mask & (1u << (2 * slot + 1));
      const uint32_t chosen = preferred ? preferred : r.legal_mask;
      const float p = 1.0f / static_cast<float>(std::popcount(chosen));
      for (int a = 0; a < game_->num_actions(); ++a) r.output[a] = (chosen >> a & 1) ? p : 0.0f;
    }
  }

 private:
  const LostCities* game_;
};

TEST_CASE("Traversal: fiber stacks hold a traversal down to the decision cap", "[cfr][stack]") {
  LostCities game;  // max_decisions 1000
  PileLoopEvaluator evaluator(&game);
  BatcherConfig batcher_config;
  batcher_config.width = 3;
  batcher_config.stack_bytes = StackBytesForDepth(game.MaxDecisions());
  batcher_config.guard_stacks = true;
  batcher_config.paint_stacks = true;
  FiberBatcher batcher(batcher_config, &evaluator);
  CfrConfig cfr = FullRecordingCfrConfig();
  cfr.scheme = Scheme::kHybrid;
  cfr.hybrid_depth = 0;  // on-policy all the way down
  std::vector<std::vector<float>> features(3, std::vector<float>(game.EncodingSize()));
  SampleSet samples(ShapeOf(game));
  batcher.Run(6, [&](int64_t index, PolicyClient& policy) {
    const TraversalParams<LostCities> params{&game, &cfr, 0, 1, index};
    RunTraversal(params, Rng(static_cast<uint64_t>(index)), policy, features[policy.slot()],
                 samples, batcher.stats());
  });
  const WorkerStats& stats = batcher.stats();
  CHECK(stats.capped_leaves == 6);
  CHECK(stats.nodes == 6 * (game.MaxDecisions() + 1));
  const size_t peak = batcher.PeakStackBytes();
  INFO("peak stack " << peak << " bytes of " << batcher_config.stack_bytes << " at depth "
                     << game.MaxDecisions() << " (" << peak / game.MaxDecisions()
                     << " bytes per level)");
  CHECK(peak < batcher_config.stack_bytes);
  CHECK(peak > static_cast<size_t>(game.MaxDecisions()) * 64);
  WARN("peak stack " << peak << " bytes of " << batcher_config.stack_bytes << " at depth "
                     << game.MaxDecisions());
}

TEST_CASE("Traversal: the value scheme's tail_cap cuts a looping game at the value network",
          "[cfr]") {
  LostCities game;  // max_decisions 1000
  PileLoopEvaluator evaluator(&game);
  BatcherConfig batcher_config;
  batcher_config.width = 3;
  FiberBatcher batcher(batcher_config, &evaluator);
  CfrConfig cfr = FullRecordingCfrConfig();
  cfr.scheme = Scheme::kValue;
  cfr.hybrid_depth = 0;  // on-policy all the way down
  cfr.tail_cap = 50;
  std::vector<std::vector<float>> features(3, std::vector<float>(game.EncodingSize()));
  SampleSet samples(ShapeOf(game));
  std::vector<double> values(6, 0.0);
  batcher.Run(6, [&](int64_t index, PolicyClient& policy) {
    const TraversalParams<LostCities> params{&game, &cfr, 0, 1, index};
    values[static_cast<size_t>(index)] =
        RunTraversal(params, Rng(static_cast<uint64_t>(index)), policy, features[policy.slot()],
                     samples, batcher.stats());
  });
  const WorkerStats& stats = batcher.stats();
  CHECK(stats.capped_leaves == 6);
  CHECK(stats.nodes == 6 * (cfr.tail_cap + 1));  // decisions 0..49, then the cut node
  // The evaluator's "value network" puts 1/k on each of the k actions it prefers, so the cut
  // node's sum_a sigma(a) Q(a) is 1/k for its mover. Each turn is two decisions (a card, then a
  // draw), so decision 50 is player 1's: the traverser (player 0) gets -1/k.
  for (double v : values) {
    CHECK(v < 0.0);
    CHECK(v >= -1.0);
  }
  cfr.scheme = Scheme::kHybrid;
  CHECK_THAT(std::string(cfr.Validate().message()),
             Catch::Contains("tail_cap: 50 needs scheme value"));
}

TEST_CASE("Traversal: configuration errors name the field", "[cfr]") {
  CfrConfig cfr = FullRecordingCfrConfig();
  cfr.epsilon = 0;
  CHECK_THAT(std::string(cfr.Validate().message()), Catch::Contains("epsilon = 0"));
  cfr = FullRecordingCfrConfig();
  cfr.hybrid_depth = -1;
  CHECK_THAT(std::string(cfr.Validate().message()), Catch::Contains("hybrid_depth"));
  RunnerConfig runner = PlainRunner();
  runner.worker_chunk_size = 0;
  CHECK_THAT(std::string(runner.Validate().message()), Catch::Contains("worker_chunk_size = 0"));
  CHECK(ParseScheme("hybrid").value() == Scheme::kHybrid);
  CHECK_THAT(std::string(ParseScheme("robust").status().message()), Catch::Contains("'robust'"));
}

}  // namespace
}  // namespace lcfr::traversal
