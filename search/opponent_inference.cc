#include "search/opponent_inference.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>

#include "base/check.h"
#include "base/rng.h"
#include "play/policy_bot.h"
#include "search/streams.h"

namespace lcfr::search {

OpponentInference::OpponentInference(const engine::LostCities& game,
                                     std::vector<RolloutSide> policies, int worlds)
    : game_(game), policies_(std::move(policies)), worlds_(worlds) {}

bool OpponentInference::Infer(const engine::State& state, const std::vector<engine::SeenMove>& seen,
                              bool knows_past, uint64_t seed, Clock::time_point deadline,
                              Workers& workers, std::vector<double>& posterior,
                              SearchReport& report) const {
  const int types = size();
  posterior.assign(types, 1.0 / types);  // the prior
  if (!knows_past) return false;
  const int opponent = 1 - state.player;
  // log_likelihood[i * types + t]: the opponent's moves in world i under policy t; its storage
  // grows with the chunks the budget runs.
  std::vector<double> log_likelihood;
  auto task = [&](int64_t i, traversal::PolicyClient& policy, Workers::Worker& worker) {
    Rng rng(DeriveSeed({seed, kOpponentStream, static_cast<uint64_t>(i)}));
    absl::StatusOr<engine::WorldHistory> world =
        engine::SampleWorldHistory(game_, state, seen, rng);
    LCFR_CHECK(world.ok()) << "search: the game's moves do not fit the state: "
                           << world.status().message();
    std::vector<std::unique_ptr<play::PolicyBot>> models(types);
    for (int t = 0; t < types; ++t) {
      if (policies_[t].bot.empty()) {
        models[t] = std::make_unique<play::PolicyBot>(&policy, policies_[t].play, game_);
      }
    }
    double* sum = &log_likelihood[static_cast<size_t>(i) * types];
    engine::State s = world->deal;
    for (const int a : world->actions) {
      if (s.player == opponent) {
        const int legal = std::popcount(game_.LegalMask(s));
        for (int t = 0; t < types; ++t) {
          play::Bot& who = models[t] ? *models[t] : *worker.opponent_bots[t];
          const double p = who.Probability(game_, s, a);
          sum[t] += std::log((1 - kUniformShare) * p + kUniformShare / legal);
        }
      }
      game_.ApplyUnchecked(s, a);
    }
  };
  const std::vector<char> ran = workers.RunOnModel(
      worlds_, deadline,
      [&](int64_t end) { log_likelihood.resize(static_cast<size_t>(end) * types, 0.0); }, task);
  // Each policy's mean likelihood over the worlds drawn (in log space, summed in index order),
  // then normalised: the posterior under a uniform prior. None drawn: the prior.
  const int n = static_cast<int>(ran.size());
  int drawn = 0;
  for (int i = 0; i < n; ++i) {
    if (ran[i]) {
      ++drawn;
      continue;
    }
    for (int t = 0; t < types; ++t) {
      log_likelihood[static_cast<size_t>(i) * types + t] = -std::numeric_limits<double>::infinity();
    }
  }
  if (drawn == 0) return false;
  std::vector<double> log_mean(types);
  for (int t = 0; t < types; ++t) {
    double top = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < n; ++i) top = std::max(top, log_likelihood[i * types + t]);
    double total = 0;
    for (int i = 0; i < n; ++i) total += std::exp(log_likelihood[i * types + t] - top);
    log_mean[t] = top + std::log(total / drawn);
  }
  const double top = *std::max_element(log_mean.begin(), log_mean.end());
  double total = 0;
  for (int t = 0; t < types; ++t) total += posterior[t] = std::exp(log_mean[t] - top);
  for (double& p : posterior) p /= total;
  if (types > 1) {
    ++report.inferred;
    const bool late = state.decisions >= SearchReport::kLateDecision;
    report.inferred_late += late;
    report.opponent_posterior.resize(types, 0.0);
    report.opponent_posterior_late.resize(types, 0.0);
    for (int t = 0; t < types; ++t) {
      report.opponent_posterior[t] += posterior[t];
      if (late) report.opponent_posterior_late[t] += posterior[t];
    }
  }
  return true;
}

}  // namespace lcfr::search
