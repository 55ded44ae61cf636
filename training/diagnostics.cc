#include "training/diagnostics.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include "base/check.h"
#include "base/rng.h"
#include "base/stream_cat.h"
#include "traversal/evaluator.h"
#include "traversal/fiber_batcher.h"
#include "traversal/fiber_tasks.h"
#include "traversal/regret_matching.h"

namespace lcfr::training {
namespace {

using engine::LostCities;
using engine::State;

// One (state, legal action) pair's figures.
struct Pair {
  double predicted_q = 0, truth_q = 0, noise_q = 0;
  double predicted_advantage = 0, truth_advantage = 0, noise_advantage = 0;
  double sampled_variance = 0;
};

struct StateFigures {
  std::vector<Pair> pairs;
  double entropy = 0;
  int64_t rollouts = 0;
};

// A state's work on one fiber: its policy calls suspend it until the worker's batch is served.
class StateCheck {
 public:
  StateCheck(const LostCities& game, const ValueCheckOptions& options,
             traversal::PolicyClient& policy)
      : game_(game),
        options_(options),
        policy_(policy),
        features_(game.EncodingSize()),
        num_actions_(game.num_actions()) {}

  StateFigures Run(int64_t index) {
    State s = FixedState(index);
    const int mover = LostCities::CurrentPlayer(s);
    const uint32_t legal = game_.LegalMask(s);
    std::array<float, 32> q_hat{};
    engine::View view;
    if (options_.history) {
      game_.HistoryView(s, view);
    } else {
      game_.MoverView(s, view);
    }
    game_.Encode(view, features_);
    policy_.Evaluate(traversal::kValueNetwork, traversal::Head::kRaw, features_, legal,
                     std::span<float>(q_hat.data(), num_actions_));
    std::array<float, 32> sigma{};
    CurrentPolicy(s, legal, sigma);

    // y[r][a]: the mover's return of rollout r after action a.
    const int rollouts = options_.rollouts;
    std::vector<std::array<double, 32>> y(rollouts);
    for (int r = 0; r < rollouts; ++r) {
      for (uint32_t m = legal; m; m &= m - 1) {
        const int a = std::countr_zero(m);
        Rng rng(DeriveSeed({options_.seed, 0x726f6c6c6f7574ULL /* "rollout" */,
                            static_cast<uint64_t>(index), static_cast<uint64_t>(r)}));
        State t = s;
        LostCities::ShuffleRemainingDeck(t, rng);
        game_.ApplyUnchecked(t, a);
        while (!LostCities::IsTerminal(t)) {
          std::array<float, 32> p{};
          const uint32_t legal_t = game_.LegalMask(t);
          CurrentPolicy(t, legal_t, p);
          game_.ApplyUnchecked(t, Sample(p, legal_t, rng));
        }
        y[r][a] = LostCities::Payoff(t, mover) / options_.payoff_scale;
      }
    }

    StateFigures figures;
    figures.rollouts = static_cast<int64_t>(rollouts) * std::popcount(legal);
    double predicted_node = 0;
    for (uint32_t m = legal; m; m &= m - 1) {
      const int a = std::countr_zero(m);
      predicted_node += sigma[a] * q_hat[a];
      if (sigma[a] > 0) figures.entropy -= sigma[a] * std::log(static_cast<double>(sigma[a]));
    }
    for (uint32_t m = legal; m; m &= m - 1) {
      const int a = std::countr_zero(m);
      double sum_q = 0, sum_q2 = 0, sum_d = 0, sum_d2 = 0;
      for (int r = 0; r < rollouts; ++r) {
        double node = 0;
        for (uint32_t n = legal; n; n &= n - 1) {
          const int b = std::countr_zero(n);
          node += sigma[b] * y[r][b];
        }
        const double d = y[r][a] - node;
        sum_q += y[r][a];
        sum_q2 += y[r][a] * y[r][a];
        sum_d += d;
        sum_d2 += d * d;
      }
      const double n = rollouts;
      Pair pair;
      pair.predicted_q = q_hat[a];
      pair.truth_q = sum_q / n;
      const double var_q = rollouts > 1 ? (sum_q2 - sum_q * sum_q / n) / (n - 1) : 0.0;
      pair.noise_q = var_q / n;
      pair.predicted_advantage = q_hat[a] - predicted_node;
      pair.truth_advantage = sum_d / n;
      pair.sampled_variance = rollouts > 1 ? (sum_d2 - sum_d * sum_d / n) / (n - 1) : 0.0;
      pair.noise_advantage = pair.sampled_variance / n;
      figures.pairs.push_back(pair);
    }
    return figures;
  }

 private:
  // The index-th fixed state: a deal and a prefix of the current policy for both players, of
  // 0..start_depth_max decisions; drawn again (the next attempt's stream) when the prefix ends
  // the game.
  State FixedState(int64_t index) {
    for (uint64_t attempt = 0;; ++attempt) {
      Rng rng(DeriveSeed(
          {options_.seed, 0x7374617465ULL /* "state" */, static_cast<uint64_t>(index), attempt}));
      State s = game_.Deal(rng);
      const int length =
          static_cast<int>(rng.Uniform(static_cast<uint32_t>(options_.start_depth_max) + 1));
      for (int k = 0; k < length && !LostCities::IsTerminal(s); ++k) {
        std::array<float, 32> p{};
        const uint32_t legal = game_.LegalMask(s);
        CurrentPolicy(s, legal, p);
        game_.ApplyUnchecked(s, Sample(p, legal, rng));
      }
      if (!LostCities::IsTerminal(s)) return s;
    }
  }

  // The mover's current policy at `s`: regret matching of its advantage network.
  void CurrentPolicy(const State& s, uint32_t legal, std::array<float, 32>& out) {
    game_.MoverView(s, view_);
    game_.Encode(view_, features_);
    policy_.Evaluate(traversal::AdvantageNetwork(LostCities::CurrentPlayer(s)),
                     traversal::Head::kRegretMatching, features_, legal,
                     std::span<float>(out.data(), num_actions_));
  }

  int Sample(const std::array<float, 32>& p, uint32_t legal, Rng& rng) {
    const int a = traversal::SampleAction(std::span<const float>(p.data(), num_actions_), legal,
                                          0.0, rng.UniformDouble());
    LCFR_CHECK_GE(a, 0) << "the evaluator returned no probability on a legal action";
    return a;
  }

  const LostCities& game_;
  const ValueCheckOptions& options_;
  traversal::PolicyClient& policy_;
  std::vector<float> features_;
  const int num_actions_;
  engine::View view_{};
};

}  // namespace

FitFigures Fit(std::span<const double> predicted, std::span<const double> truth,
               std::span<const double> noise) {
  LCFR_CHECK_EQ(predicted.size(), truth.size());
  LCFR_CHECK_EQ(noise.size(), truth.size());
  FitFigures fit;
  const size_t n = truth.size();
  if (n == 0) return fit;
  double mean = 0;
  for (double t : truth) mean += t;
  mean /= static_cast<double>(n);
  double sst = 0, sse = 0, noise_sum = 0;
  for (size_t i = 0; i < n; ++i) {
    sst += (truth[i] - mean) * (truth[i] - mean);
    sse += (predicted[i] - truth[i]) * (predicted[i] - truth[i]);
    noise_sum += noise[i];
  }
  fit.rmse = std::sqrt(sse / static_cast<double>(n));
  fit.r2 = sst > 0 ? 1.0 - sse / sst : 0.0;
  fit.noise_share = sst > 0 ? noise_sum / sst : 0.0;
  return fit;
}

absl::StatusOr<ValueCheckResult> CheckValueAccuracy(const engine::LostCities& game,
                                                    const traversal::EvaluatorFactory& evaluators,
                                                    const ValueCheckOptions& options) {
  if (options.states < 1 || options.rollouts < 2 || options.workers < 1 || options.width < 1 ||
      options.start_depth_max < 0 || !(options.payoff_scale > 0)) {
    return absl::InvalidArgumentError(lcfr::StreamCat(
        "value check: states (", options.states, ") must be >= 1, rollouts (", options.rollouts,
        ") >= 2, workers and width >= 1, start_depth_max >= 0, payoff_scale > 0"));
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<StateFigures> per_state(options.states);
  const int workers = std::min(options.workers, options.states);
  traversal::RunFiberTasks(evaluators, options.states, workers, options.width,
                           [&](int64_t i, traversal::PolicyClient& policy) {
                             StateCheck check(game, options, policy);
                             per_state[i] = check.Run(i);
                           });
  std::vector<double> pq, tq, nq, pa, ta, na;
  ValueCheckResult result;
  result.states = options.states;
  double variance_sum = 0, entropy_sum = 0;
  for (const StateFigures& f : per_state) {
    result.rollouts += f.rollouts;
    entropy_sum += f.entropy;
    for (const Pair& p : f.pairs) {
      pq.push_back(p.predicted_q);
      tq.push_back(p.truth_q);
      nq.push_back(p.noise_q);
      pa.push_back(p.predicted_advantage);
      ta.push_back(p.truth_advantage);
      na.push_back(p.noise_advantage);
      variance_sum += p.sampled_variance;
    }
  }
  result.pairs = static_cast<int64_t>(tq.size());
  const FitFigures q = Fit(pq, tq, nq);
  const FitFigures a = Fit(pa, ta, na);
  result.r2_q = q.r2;
  result.rmse_q = q.rmse;
  result.noise_share_q = q.noise_share;
  result.r2_advantage = a.r2;
  result.rmse_advantage = a.rmse;
  result.noise_share_advantage = a.noise_share;
  result.sampled_target_variance =
      result.pairs > 0 ? variance_sum / static_cast<double>(result.pairs) : 0.0;
  result.mean_sigma_entropy = entropy_sum / options.states;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace lcfr::training
