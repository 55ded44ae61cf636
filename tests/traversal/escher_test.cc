// ESCHER (traversal/cfr.h, EscherTraversal): expected regret targets against the exact solver,
// unbiased value returns, the mover's side of the history values, determinism, the balanced
// sampling policy.
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
#include "traversal/cfr.h"
#include "traversal/evaluators.h"
#include "traversal/runner.h"

namespace lcfr::traversal {
namespace {

using engine::KuhnPoker;
using engine::LeducPoker;
using engine::LostCities;
using namespace testing;

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
