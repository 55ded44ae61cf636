#include "training/evaluation.h"

#include <exception>
#include <thread>
#include <vector>

#include "engine/check.h"
#include "engine/stream_cat.h"
#include "training/compose.h"
#include "traversal/regret_matching.h"

namespace lcfr::training {

PolicyBot::PolicyBot(traversal::PolicyClient* policy, int network, const engine::LostCities& game)
    : policy_(policy),
      network_(network),
      features_(game.EncodingSize()),
      probabilities_(game.num_actions()) {}

int PolicyBot::Act(const engine::LostCities& game, const engine::View& view, engine::Rng& rng) {
  const uint32_t legal = game.LegalMask(view);
  game.Encode(view, features_);
  // The strategy network's logits give the average strategy; an advantage network's outputs
  // give its player's current regret-matching strategy.
  const traversal::Head head = network_ == traversal::kStrategyNetwork
                                   ? traversal::Head::kSoftmax
                                   : traversal::Head::kRegretMatching;
  policy_->Evaluate(network_, head, features_, legal, probabilities_);
  const int action = traversal::SampleAction(probabilities_, legal, 0.0, rng.UniformDouble());
  LCFR_CHECK_GE(action, 0) << "the policy gave no probability to a legal action";
  return action;
}

absl::StatusOr<engine::MatchResult> PlayNetworkMatch(const engine::LostCities& game,
                                                     const EvaluatorFactory& evaluators,
                                                     const std::string& opponent, int games,
                                                     uint64_t seed, int workers, int width,
                                                     int network_id) {
  if (!engine::MakeBot(opponent).ok()) {
    return absl::InvalidArgumentError(lcfr::StreamCat("unknown opponent '", opponent, "'"));
  }
  std::vector<engine::GameOutcome> outcomes(games);
  std::vector<std::exception_ptr> errors(workers);
  auto body = [&](int w) {
    try {
      const int begin = games * w / workers, end = games * (w + 1) / workers;
      std::unique_ptr<traversal::Evaluator> evaluator = evaluators(w);
      traversal::BatcherConfig config;
      config.width = width;
      config.stack_bytes =
          traversal::StackBytesForDepth(64);  // PlayGame is a loop, not a recursion
      traversal::FiberBatcher batcher(config, evaluator.get());
      batcher.Run(end - begin, [&](int64_t i, traversal::PolicyClient& policy) {
        const int g = begin + static_cast<int>(i);
        PolicyBot network(&policy, network_id, game);
        auto bot = engine::MakeBot(opponent);
        outcomes[g] = engine::PlayMatchGame(game, network, **bot, g, seed);
      });
    } catch (...) {
      errors[w] = std::current_exception();
    }
  };
  if (workers == 1) {
    body(0);
  } else {
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w) threads.emplace_back(body, w);
    for (auto& t : threads) t.join();
  }
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  engine::MatchResult result;
  for (int g = 0; g < games; ++g) result.Add(outcomes[g], engine::SeatOfA(g));
  return result;
}

absl::StatusOr<std::vector<BotResult>> PlayEvaluationMatches(
    const engine::LostCities& game, std::shared_ptr<const inference::ModelStore> store,
    const inference::InferenceConfig& inference, const EvaluationConfig& config, uint64_t seed) {
  std::vector<BotResult> results;
  for (const std::string& opponent : config.opponents) {
    absl::StatusOr<Evaluators> evaluators = MakeEvaluators(store, inference, config.workers);
    if (!evaluators.ok()) return evaluators.status();
    auto result =
        PlayNetworkMatch(game, HandOut(*evaluators), opponent, config.games, seed, config.workers);
    if (!result.ok()) {
      return absl::Status(result.status().code(), lcfr::StreamCat("evaluation against ", opponent,
                                                                  ": ", result.status().message()));
    }
    const engine::Interval ci = result->win_rate_ci();
    results.push_back({opponent, result->win_rate(), ci.low, ci.high, result->mean_score_diff(),
                       result->games, result->capped});
  }
  return results;
}

}  // namespace lcfr::training
