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
#include "traversal/evaluators.h"
#include "traversal/runner.h"

namespace lcfr::traversal {
namespace {

using engine::KuhnPoker;
using engine::LeducPoker;
using engine::LostCities;

// A fixed strategy with full support that depends only on (player, features): probabilities
// proportional to 0.2 + u, u uniform from a hash of the infoset. A tabular strategy for the
// unbiasedness checks, usable both as an Evaluator and as an exact-solver policy.
void HashedStrategy(int player, std::span<const float> features, uint32_t legal,
                    std::span<float> out) {
  uint64_t h = 1469598103934665603ULL ^ static_cast<uint64_t>(player);
  for (float f : features) h = (h ^ static_cast<uint64_t>(f * 7 + 3)) * 1099511628211ULL;
  double total = 0;
  for (size_t a = 0; a < out.size(); ++a) {
    out[a] = 0;
    if (!(legal >> a & 1)) continue;
    Rng rng(DeriveSeed({h, a}));
    out[a] = static_cast<float>(0.2 + rng.UniformDouble());
    total += out[a];
  }
  for (float& p : out) p = static_cast<float>(p / total);
}

class HashedEvaluator : public Evaluator {
 public:
  void Evaluate(std::span<const PolicyRequest> requests) override {
    for (const PolicyRequest& r : requests)
      HashedStrategy(r.network, r.features, r.legal_mask, r.output);
  }
};

template <typename G>
auto HashedPolicy(const G& game) {
  return [&game](const typename G::State& s, std::span<float> out) {
    std::vector<float> features(game.EncodingSize());
    game.Encode(s, features);
    HashedStrategy(game.CurrentPlayer(s), features, game.LegalMask(s), out);
  };
}

// One worker and the exact checks' CFR settings (FullRecordingCfrConfig), set per test.
RunnerConfig PlainRunner() {
  RunnerConfig config;
  config.workers = 1;
  config.cfr = FullRecordingCfrConfig();
  return config;
}

template <typename G>
CollectingSink RunOnce(const G& game, const RunnerConfig& config, int iteration, int traverser,
                       int64_t count, const EvaluatorFactory& factory,
                       WorkerStats* stats = nullptr) {
  TraversalRunner<G> runner(game, config, factory);
  CollectingSink sink(traversal::ShapeOf(game));
  runner.Run(iteration, traverser, count, sink);
  if (stats != nullptr) *stats = runner.TotalStats();
  return sink;
}

// Small enough for the ThreadSanitizer run of scripts/test.sh: several worker threads, each
// with its own fibers and evaluator, streaming into one sink; the same samples as one worker.
TEST_CASE("Runner: worker threads share only the sink (the TSan run's case)", "[threads]") {
  const LeducPoker game;
  RunnerConfig config = PlainRunner();
  config.seed = 5;
  config.worker_chunk_size = 4;
  config.cfr.scheme = Scheme::kValue;
  config.cfr.hybrid_depth = 1;
  config.cfr.value_from_iteration = 1;
  auto factory = [&game](int) {
    return std::make_unique<PseudoNetworkEvaluator>(game.EncodingSize(), game.num_actions(), 3);
  };
  const CollectingSink one = RunOnce(game, config, 2, 0, 48, factory);
  config.workers = 3;
  const CollectingSink three = RunOnce(game, config, 2, 0, 48, factory);
  for (SampleKind kind : kSampleKinds) {
    INFO(SampleKindName(kind));
    CHECK(three[kind] == one[kind]);
  }
  CHECK(!one[SampleKind::kValue].empty());
}

TEST_CASE("Runner: a thread that cannot start and stacks that cannot be allocated are errors",
          "[threads]") {
  const KuhnPoker game;
  RunnerConfig config = PlainRunner();
  config.workers = 3;
  config.worker_chunk_size = 2;
  auto factory = [&game](int) {
    return std::make_unique<PseudoNetworkEvaluator>(game.EncodingSize(), game.num_actions(), 3);
  };
  TraversalRunner<KuhnPoker> runner(game, config, factory);
  int started = 0;
  runner.set_thread_starter([&started](std::function<void()> fn) {
    if (started == 2) {
      throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
    }
    ++started;
    return std::thread(std::move(fn));
  });
  CollectingSink sink(traversal::ShapeOf(game));
  // It used to be std::terminate: the vector of joinable threads was destroyed unjoined.
  CHECK_THROWS_WITH(runner.Run(1, 0, 12, sink),
                    Catch::Contains("cannot start traversal thread 3 of 3") &&
                        Catch::Contains("lower traversal.workers"));
  // The runner is still usable once threads can start again.
  runner.set_thread_starter([](std::function<void()> fn) { return std::thread(std::move(fn)); });
  CollectingSink again(traversal::ShapeOf(game));
  runner.Run(1, 0, 12, again);
  const CollectingSink fresh = RunOnce(game, config, 1, 0, 12, factory);
  for (SampleKind kind : kSampleKinds) CHECK(again[kind] == fresh[kind]);
  CHECK(!fresh[SampleKind::kAdvantage].empty());

  // Fiber stacks beyond the address space: an error naming the sizes and the keys to lower.
  config.stack_bytes = size_t{1} << 46;
  config.guard_stacks = true;  // mmap, which fails cleanly under every sanitizer
  CHECK_THROWS_WITH((TraversalRunner<KuhnPoker>(game, config, factory)),
                    Catch::Contains("cannot allocate 3 traversal worker(s) x 2 fibers") &&
                        Catch::Contains("lower traversal.workers or traversal.worker_chunk_size"));
}

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

// Per (infoset, action): the mean over traversals of sum(weight * target), and its standard
// error, from the samples of `traversals` traversals (samples ordered by traversal).
struct Estimate {
  std::vector<double> mean, se;
};

std::unordered_map<std::string, Estimate> PerInfosetMeans(const SampleBuffer& samples,
                                                          int64_t traversals) {
  const int n = samples.num_actions();
  std::unordered_map<std::string, std::pair<std::vector<double>, std::vector<double>>> sums;
  std::unordered_map<std::string, std::vector<double>> current;  // this traversal's sums
  auto flush = [&] {
    for (auto& [key, x] : current) {
      auto& [sum, sum_sq] = sums[key];
      sum.resize(n), sum_sq.resize(n);
      for (int a = 0; a < n; ++a) sum[a] += x[a], sum_sq[a] += x[a] * x[a];
    }
    current.clear();
  };
  for (size_t i = 0; i < samples.size(); ++i) {
    if (i > 0 && samples.traversal(i) != samples.traversal(i - 1)) flush();
    std::vector<double>& x = current[engine::InfosetKey(samples.player(i), samples.features(i))];
    x.resize(n);
    for (int a = 0; a < n; ++a) x[a] += samples.weight(i) * samples.target(i)[a];
  }
  flush();
  std::unordered_map<std::string, Estimate> estimates;
  const double count = static_cast<double>(traversals);
  for (const auto& [key, s] : sums) {
    Estimate& e = estimates[key];
    for (int a = 0; a < n; ++a) {
      const double mean = s.first[a] / count;
      const double var = std::max(0.0, s.second[a] / count - mean * mean);
      e.mean.push_back(mean);
      e.se.push_back(std::sqrt(var / (count - 1)));
    }
  }
  return estimates;
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

// ---- ESCHER (traversal/cfr.h, EscherTraversal) ---------------------------------------------

// A salted variant of HashedStrategy: another fixed full-support strategy per salt.
// From salt 10 on, peaked: the probabilities raised to the 6th power and renormalised (still
// full support), far from uniform.
void SaltedStrategy(uint64_t salt, int player, std::span<const float> features, uint32_t legal,
                    std::span<float> out) {
  HashedStrategy(player + 2 * static_cast<int>(salt), features, legal, out);
  if (salt < 10) return;
  double total = 0;
  for (float& p : out) total += (p = std::pow(p, 6.0f));
  for (float& p : out) p = static_cast<float>(p / total);
}

// ESCHER's test double: the advantage networks answer SaltedStrategy(salt), the value network
// the exact history action values of that strategy (engine/exact.h), in scaled units.
template <typename G>
class EscherExactEvaluator : public Evaluator {
 public:
  EscherExactEvaluator(const G& game, const engine::ExactSolver<G>& solver, uint64_t salt)
      : salt_(salt), scale_(game.DefaultPayoffScale()) {
    for (auto& [key, q] : solver.HistoryActionValues(Policy(game, salt))) {
      values_[key.substr(1)] = q;  // the history encoding names its mover itself
    }
  }
  static auto Policy(const G& game, uint64_t salt) {
    return [&game, salt](const typename G::State& s, std::span<float> out) {
      std::vector<float> features(game.EncodingSize());
      game.Encode(s, features);
      SaltedStrategy(salt, game.CurrentPlayer(s), features, game.LegalMask(s), out);
    };
  }
  void Evaluate(std::span<const PolicyRequest> requests) override {
    for (const PolicyRequest& r : requests) {
      if (r.network != kValueNetwork) {
        SaltedStrategy(salt_, r.network, r.features, r.legal_mask, r.output);
        continue;
      }
      const std::string key(reinterpret_cast<const char*>(r.features.data()),
                            r.features.size_bytes());
      const std::vector<double>& q = values_.at(key);
      for (size_t a = 0; a < r.output.size(); ++a) {
        r.output[a] = (r.legal_mask >> a & 1) ? static_cast<float>(q[a] / scale_) : 0.0f;
      }
    }
  }

 private:
  uint64_t salt_;
  double scale_;
  std::unordered_map<std::string, std::vector<double>> values_;
};

RunnerConfig EscherRunner() {
  RunnerConfig config = PlainRunner();
  config.worker_chunk_size = 16;
  config.cfr.scheme = Scheme::kEscher;
  config.cfr.sampling_policy = SamplingPolicy::kUniform;
  config.cfr.strategy_sample_rate = 1.0;
  config.cfr.value_sample_rate = 1.0;
  return config;
}

// The identity that makes ESCHER CFR: with exact history values, each infoset's expected target
// per traversal is pi^xi(I) * r(I, a), with pi^xi(I) the fixed policy's own reach, the same for
// two different strategies and iterations.
template <typename G>
void CheckEscherTargets(const G& game, int64_t traversals) {
  engine::ExactSolver<G> solver(game);
  const int n = game.num_actions();
  const double scale = game.DefaultPayoffScale();
  auto uniform = [&](const typename G::State& s, std::span<float> out) {
    typename G::View view;
    game.MoverView(s, view);
    FixedPolicy(game, view, game.LegalMask(s), SamplingPolicy::kUniform, out);
  };
  RunnerConfig config = EscherRunner();
  int rejects_unscaled = 0;  // over every check: the factor pi^xi(I) is really there
  for (int traverser : {0, 1}) {
    const auto xi_reach = solver.OwnReach(uniform, traverser);
    for (uint64_t salt : {1, 2}) {
      INFO("traverser " << traverser << ", strategy " << salt);
      const int iteration = salt == 1 ? 1 : 7;
      config.seed = 100 + salt;
      const CollectingSink sink = RunOnce(game, config, iteration, traverser, traversals, [&](int) {
        return std::make_unique<EscherExactEvaluator<G>>(game, solver, salt);
      });
      CHECK(sink[SampleKind::kValue].empty());  // regret traversals record no value samples
      for (size_t i = 0; i < sink[SampleKind::kAdvantage].size(); ++i) {
        REQUIRE(sink[SampleKind::kAdvantage].weight(i) == 1.0f);
      }
      const auto estimates = PerInfosetMeans(sink[SampleKind::kAdvantage], traversals);
      const auto regrets =
          solver.CounterfactualRegrets(EscherExactEvaluator<G>::Policy(game, salt), traverser);
      int checked = 0, nonzero = 0;
      double worst = 0;
      for (const auto& [key, regret] : regrets) {
        const double reach = xi_reach.at(key);
        REQUIRE(reach > 0);
        const auto found = estimates.find(key);
        REQUIRE(found != estimates.end());  // full support: every infoset is visited
        for (int a = 0; a < n; ++a) {
          const double expected = reach * regret[a] / scale;
          const double mean = found->second.mean[a], se = found->second.se[a];
          worst = std::max(worst, std::abs(mean - expected) / (se + 1e-12));
          CHECK(std::abs(mean - expected) <= 5 * se + 1e-9);
          nonzero += std::abs(expected) > 1e-6;
          rejects_unscaled += std::abs(mean - regret[a] / scale) > 5 * se + 1e-9;
          ++checked;
        }
      }
      INFO("largest deviation " << worst << " standard errors over " << checked << " checks");
      CHECK(nonzero > checked / 3);
    }
  }
  CHECK(rejects_unscaled > 0);
}

TEST_CASE("ESCHER: expected regret targets are pi^xi(I) times the counterfactual regrets",
          "[cfr][unbiased][escher]") {
  SECTION("Kuhn") { CheckEscherTargets(KuhnPoker(), 20000); }
  SECTION("Leduc") { CheckEscherTargets(LeducPoker(), 60000); }
}

TEST_CASE("ESCHER: value traversals' returns are unbiased for the history action values",
          "[cfr][unbiased][escher]") {
  const LeducPoker game;
  engine::ExactSolver<LeducPoker> solver(game);
  RunnerConfig config = EscherRunner();
  config.seed = 9;
  config.cfr.value_epsilon = 0.3;  // heavy exploration: the importance correction matters
  config.cfr.start_depth_max = 2;  // and a prefix with one player on the sampling policy
  const uint64_t salt = 10;        // a peaked strategy, far from the exploration's uniform
  const int64_t traversals = 100000;
  WorkerStats stats;
  const CollectingSink sink = RunOnce(
      game, config, 1, kValueTraversal, traversals,
      [&](int) { return std::make_unique<EscherExactEvaluator<LeducPoker>>(game, solver, salt); },
      &stats);
  CHECK(sink[SampleKind::kAdvantage].empty());
  CHECK(sink[SampleKind::kStrategy].empty());
  CHECK(stats.value_samples == static_cast<int64_t>(sink[SampleKind::kValue].size()));
  const auto policy = EscherExactEvaluator<LeducPoker>::Policy(game, salt);
  const auto exact = solver.HistoryActionValues(policy);
  // The values of the exploring policy itself, which uncorrected returns would estimate.
  const auto explored = solver.HistoryActionValues([&](const auto& st, std::span<float> out) {
    policy(st, out);
    const uint32_t legal = game.LegalMask(st);
    for (size_t a = 0; a < out.size(); ++a) {
      if (legal >> a & 1) out[a] = 0.3f / static_cast<float>(std::popcount(legal)) + 0.7f * out[a];
    }
  });
  std::map<std::pair<std::string, int>, std::array<double, 3>> sums;  // count, sum, sum sq
  const SampleBuffer& values = sink[SampleKind::kValue];
  for (size_t i = 0; i < values.size(); ++i) {
    REQUIRE(std::popcount(values.legal_mask(i)) == 1);
    const int a = std::countr_zero(values.legal_mask(i));
    auto& [count, sum, sum_sq] =
        sums[{engine::InfosetKey(values.player(i), values.features(i)), a}];
    const double x = values.target(i)[a];
    count += 1, sum += x, sum_sq += x * x;
  }
  int checked = 0, rejects_explored = 0;
  for (const auto& [key_action, s] : sums) {
    const auto& [count, sum, sum_sq] = s;
    // The corrected returns are heavy-tailed (most carry a tiny ratio, a few a large one): the
    // standard error is trusted only over many samples.
    if (count < 400) continue;
    const double mean = sum / count;
    const double se = std::sqrt(std::max(0.0, sum_sq / count - mean * mean) / (count - 1));
    const double expected = exact.at(key_action.first)[key_action.second];
    INFO("count " << count << " mean " << mean << " expected " << expected << " se " << se
                  << " action " << key_action.second);
    CHECK(std::abs(mean - expected) <= 5 * se + 1e-9);
    const double uncorrected = explored.at(key_action.first)[key_action.second];
    rejects_explored += std::abs(mean - uncorrected) > 5 * se + 1e-9;
    ++checked;
  }
  CHECK(checked > 150);
  CHECK(rejects_explored > 10);
}

TEST_CASE("ESCHER: the exact history values are from the mover's side", "[escher]") {
  // Q(h, a) is the mover's value of h.a; at a child whose mover is the other player, that
  // player's value sum_b sigma(b) Q(h.a, b) is its negative (zero-sum, from each side).
  const KuhnPoker game;
  engine::ExactSolver<KuhnPoker> solver(game);
  auto policy = EscherExactEvaluator<KuhnPoker>::Policy(game, 1);
  const auto q = solver.HistoryActionValues(policy);
  int checked = 0;
  for (const auto& deal : game.AllDeals()) {
    KuhnPoker::State s = deal.state;
    std::vector<float> enc(game.EncodingSize()), sigma(2);
    auto key = [&](const KuhnPoker::State& state) {
      KuhnPoker::View v;
      game.HistoryView(state, v);
      game.Encode(v, enc);
      return engine::InfosetKey(game.CurrentPlayer(state), enc);
    };
    for (int a : {KuhnPoker::kPass, KuhnPoker::kBet}) {
      KuhnPoker::State child = s;
      game.ApplyUnchecked(child, a);
      if (game.IsTerminal(child)) continue;
      policy(child, sigma);
      const auto& qc = q.at(key(child));
      const double child_value = sigma[0] * qc[0] + sigma[1] * qc[1];
      CHECK(std::abs(q.at(key(s))[a] + child_value) < 1e-9);
      ++checked;
    }
  }
  CHECK(checked == 12);
}

TEST_CASE("ESCHER: determinism across widths and workers, value and regret traversals",
          "[escher]") {
  const LostCities game;
  RunnerConfig config = PlainRunner();
  config.seed = 3;
  config.cfr.scheme = Scheme::kEscher;
  config.cfr.sampling_policy = SamplingPolicy::kBalanced;
  config.cfr.strategy_sample_rate = 0.2;
  config.cfr.value_sample_rate = 0.3;
  config.cfr.value_epsilon = 0.05;
  auto factory = [&game](int) {
    return std::make_unique<PseudoNetworkEvaluator>(game.EncodingSize(), game.num_actions(), 4);
  };
  for (int traverser : {kValueTraversal, 0}) {
    INFO("traverser " << traverser);
    config.workers = 1;
    config.worker_chunk_size = 1;
    const CollectingSink reference = RunOnce(game, config, 2, traverser, 12, factory);
    config.workers = 2;
    config.worker_chunk_size = 5;
    const CollectingSink wide = RunOnce(game, config, 2, traverser, 12, factory);
    for (SampleKind kind : kSampleKinds) CHECK(wide[kind] == reference[kind]);
    if (traverser == kValueTraversal) {
      CHECK(!reference[SampleKind::kValue].empty());
    } else {
      CHECK(!reference[SampleKind::kAdvantage].empty());
      CHECK(!reference[SampleKind::kStrategy].empty());
    }
  }
}

TEST_CASE("ESCHER: the balanced policy is uniform over the classes, then within", "[escher]") {
  const LostCities game;
  Rng rng(17);
  int states = 0;
  std::array<int, LostCities::kNumActionClasses> seen{};
  for (int g = 0; g < 40; ++g) {
    LostCities::State s = game.Deal(rng);
    while (!game.IsTerminal(s)) {
      const uint32_t legal = game.LegalMask(s);
      const LostCities::View view = game.MoverView(s);
      std::array<float, 32> p{};
      FixedPolicy(game, view, legal, SamplingPolicy::kBalanced,
                  std::span<float>(p.data(), game.num_actions()));
      std::array<double, LostCities::kNumActionClasses> mass{};
      std::array<int, LostCities::kNumActionClasses> members{};
      double total = 0;
      for (int a = 0; a < game.num_actions(); ++a) {
        if (!(legal >> a & 1)) {
          REQUIRE(p[a] == 0.0f);
          continue;
        }
        REQUIRE(p[a] > 0.0f);  // full support
        const int c = game.ActionClass(view, a);
        mass[c] += p[a], ++members[c], total += p[a];
        seen[c] = 1;
      }
      REQUIRE(std::abs(total - 1.0) < 1e-5);
      int classes = 0;
      for (int m : members) classes += m > 0;
      for (int c = 0; c < LostCities::kNumActionClasses; ++c) {
        if (members[c] > 0) REQUIRE(std::abs(mass[c] - 1.0 / classes) < 1e-5);
      }
      // It reads the mover's view only: the classes of a state's actions equal those computed
      // from a view whose hidden parts differ (the history view reveals the opponent's hand).
      const LostCities::View history = [&] {
        LostCities::View v;
        game.HistoryView(s, v);
        return v;
      }();
      for (int a = 0; a < game.num_actions(); ++a) {
        if (legal >> a & 1) REQUIRE(game.ActionClass(history, a) == game.ActionClass(view, a));
      }
      const std::vector<int> actions = game.LegalActions(s);
      game.ApplyUnchecked(s, actions[rng.Uniform(static_cast<uint32_t>(actions.size()))]);
      ++states;
    }
  }
  CHECK(states > 1000);
  for (int c = 0; c < LostCities::kNumActionClasses; ++c) CHECK(seen[c] == 1);
}

}  // namespace
}  // namespace lcfr::traversal
