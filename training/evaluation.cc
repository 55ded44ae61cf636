#include "training/evaluation.h"

#include <vector>

#include "base/stream_cat.h"
#include "training/compose.h"

namespace lcfr::training {

BotResult ToBotResult(const std::string& opponent, const std::string& policy,
                      const play::NetworkMatchResult& result) {
  const play::MatchResult& m = result.match;
  const play::Interval ci = m.win_rate_ci();
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
      auto result = play::PlayNetworkMatch(game, HandOut(*evaluators), opponent, config.games, seed,
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
