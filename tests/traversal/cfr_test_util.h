// Helpers of the traversal suites (cfr_test.cc, escher_test.cc, runner_test.cc): a fixed
// full-support strategy as an Evaluator and as an exact-solver policy, one runner's samples, and
// per-infoset means of sampled targets.
#ifndef LCFR_TESTS_TRAVERSAL_CFR_TEST_UTIL_H_
#define LCFR_TESTS_TRAVERSAL_CFR_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/exact.h"
#include "traversal/cfr.h"
#include "traversal/evaluators.h"
#include "traversal/runner.h"

namespace lcfr::traversal::testing {

// A fixed strategy with full support that depends only on (player, features): probabilities
// proportional to 0.2 + u, u uniform from a hash of the infoset. A tabular strategy for the
// unbiasedness checks, usable both as an Evaluator and as an exact-solver policy.
inline void HashedStrategy(int player, std::span<const float> features, uint32_t legal,
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
inline RunnerConfig PlainRunner() {
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

// Per (infoset, action): the mean over traversals of sum(weight * target), and its standard
// error, from the samples of `traversals` traversals (samples ordered by traversal).
struct Estimate {
  std::vector<double> mean, se;
};

inline std::unordered_map<std::string, Estimate> PerInfosetMeans(const SampleBuffer& samples,
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

}  // namespace lcfr::traversal::testing

#endif  // LCFR_TESTS_TRAVERSAL_CFR_TEST_UTIL_H_
