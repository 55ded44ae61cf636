#include "training/evaluation.h"

#include <array>
#include <bit>
#include <cmath>
#include <exception>
#include <thread>
#include <vector>

#include "engine/check.h"
#include "engine/stream_cat.h"
#include "training/compose.h"
#include "traversal/regret_matching.h"

namespace lcfr::training {

void RunOnThreads(int threads, const std::function<void(int)>& body) {
  std::vector<std::exception_ptr> errors(threads);
  auto guarded = [&](int t) {
    try {
      body(t);
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(guarded, t);
  guarded(0);
  for (auto& th : pool) th.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

void RunFiberTasks(const EvaluatorFactory& evaluators, int64_t tasks, int workers, int width,
                   const std::function<void(int64_t, traversal::PolicyClient&)>& task) {
  RunOnThreads(workers, [&](int w) {
    const int64_t begin = tasks * w / workers, end = tasks * (w + 1) / workers;
    std::unique_ptr<traversal::Evaluator> evaluator = evaluators(w);
    traversal::BatcherConfig config;
    config.width = width;
    config.stack_bytes = traversal::StackBytesForDepth(64);  // loops, not a recursion
    traversal::FiberBatcher batcher(config, evaluator.get());
    batcher.Run(end - begin,
                [&](int64_t i, traversal::PolicyClient& policy) { task(begin + i, policy); });
  });
}

absl::StatusOr<NetworkMatchResult> PlayNetworkMatch(const engine::LostCities& game,
                                                    const EvaluatorFactory& evaluators,
                                                    const std::string& opponent, int games,
                                                    uint64_t seed, int workers, int width,
                                                    play::PlayPolicy play, int network_id) {
  if (!engine::MakeBot(opponent).ok()) {
    return absl::InvalidArgumentError(lcfr::StreamCat("unknown opponent '", opponent, "'"));
  }
  std::vector<engine::GameOutcome> outcomes(games);
  std::vector<std::array<int64_t, 2>> counts(games);  // decisions, fallbacks
  RunFiberTasks(evaluators, games, workers, width, [&](int64_t i, traversal::PolicyClient& policy) {
    const int g = static_cast<int>(i);
    play::PolicyBot network(&policy, play, game, network_id);
    auto bot = engine::MakeBot(opponent);
    outcomes[g] = engine::PlayMatchGame(game, network, **bot, g, seed);
    counts[g] = {network.decisions(), network.fallbacks()};
  });
  NetworkMatchResult result;
  for (int g = 0; g < games; ++g) {
    result.match.Add(outcomes[g], engine::SeatOfA(g));
    result.decisions += counts[g][0];
    result.fallbacks += counts[g][1];
  }
  return result;
}

BotResult ToBotResult(const std::string& opponent, const std::string& policy,
                      const NetworkMatchResult& result) {
  const engine::MatchResult& m = result.match;
  const engine::Interval ci = m.win_rate_ci();
  BotResult r;
  r.opponent = opponent;
  r.policy = policy;
  r.win_rate = m.win_rate();
  r.ci_low = ci.low;
  r.ci_high = ci.high;
  r.mean_score_diff = m.mean_score_diff();
  r.games = m.games;
  r.capped = m.capped;
  r.colors_opened = m.colors_opened_per_game();
  r.score_per_color = m.score_per_opened_color();
  r.positive_share = m.positive_share();
  r.wagers_below_cost = m.wagers_below_cost_per_game();
  r.fallback_rate = result.fallback_rate();
  return r;
}

absl::StatusOr<std::vector<BotResult>> PlayEvaluationMatches(
    const engine::LostCities& game, std::shared_ptr<const inference::ModelStore> store,
    const inference::InferenceConfig& inference, const EvaluationConfig& config, uint64_t seed) {
  std::vector<BotResult> defaults, results;
  std::vector<play::PlayPolicy> policies;
  for (const std::string& name : config.policies) {
    absl::StatusOr<play::PlayPolicy> policy = play::PlayPolicy::Parse(name);
    if (!policy.ok()) return policy.status();
    policies.push_back(*policy);
  }
  for (size_t k = 0; k < policies.size(); ++k) {
    for (const std::string& opponent : config.opponents) {
      absl::StatusOr<Evaluators> evaluators = MakeEvaluators(store, inference, config.workers);
      if (!evaluators.ok()) return evaluators.status();
      auto result = PlayNetworkMatch(game, HandOut(*evaluators), opponent, config.games, seed,
                                     config.workers, 64, policies[k]);
      if (!result.ok()) {
        return absl::Status(
            result.status().code(),
            lcfr::StreamCat("evaluation against ", opponent, ": ", result.status().message()));
      }
      if (k == 0) defaults.push_back(ToBotResult(opponent, "", *result));
      results.push_back(ToBotResult(opponent, policies[k].Name(), *result));
    }
  }
  // The default keys first (eval.<bot>), then eval.<policy>.<bot>.
  defaults.insert(defaults.end(), results.begin(), results.end());
  return defaults;
}

}  // namespace lcfr::training
