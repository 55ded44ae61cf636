#include "training/local_best_response.h"

#include <vector>

#include "base/strings.h"
#include "play/match.h"
#include "search/config.h"
#include "search/match.h"
#include "training/compose.h"
#include "training/exploit.h"

namespace lcfr::training {

absl::StatusOr<ExploitResult> LocalBestResponse(std::shared_ptr<const inference::ModelStore> store,
                                                const TrainConfig& config,
                                                play::PlayPolicy::Source policy,
                                                const inference::InferenceConfig& inference,
                                                const LocalBestResponseOptions& options,
                                                const std::function<void(int)>& progress) {
  if (options.games < 2 || options.games % 2 != 0) {
    return absl::InvalidArgumentError(
        lcfr::StrCat("--games: ", options.games, " is not a positive even number (paired deals)"));
  }
  search::Blueprint blueprint;
  blueprint.play = play::PlayPolicy{policy, false};
  blueprint.SetValue(config.traversal.cfr);
  search::SearchConfig search;
  search.rollouts = options.rollouts;
  search.candidates = 0;  // every legal action
  // The best mean replaces the target's own choice only by a clear margin: with ten or more
  // candidates the largest of their noisy means is biased upwards.
  search.threshold = 1.0;
  search.objective = search::Objective::kScore;
  search.belief = options.worlds;
  search.belief_power = 1.0;
  search.workers = 1;  // a game per thread
  if (absl::Status s = search.Validate(); !s.ok()) return s;
  const std::vector<const inference::ModelStore*> models = {store.get()};
  if (absl::Status fits = CheckSearchMemory(EstimateSearchBytes(search, options.threads, models),
                                            "--workers (games at once)");
      !fits.ok()) {
    return fits;
  }
  // One evaluator for each game thread's searcher and one for its opponent, the target.
  absl::StatusOr<Evaluators> evaluators =
      MakeEvaluators(store, ForSearch(inference, search), options.threads * (search.workers + 1));
  if (!evaluators.ok()) return evaluators.status();
  const engine::LostCities game(config.rules);
  absl::StatusOr<search::SearchMatchResult> played =
      search::PlaySearchMatch(game, blueprint, search, HandOut(*evaluators), "self", options.games,
                              options.seed, options.threads, progress);
  if (!played.ok()) return played.status();
  std::vector<double> diffs;
  for (const play::GameResult& g : played->match.per_game) diffs.push_back(g.score_a - g.score_b);
  return ExploitResultOf(diffs);
}

}  // namespace lcfr::training
