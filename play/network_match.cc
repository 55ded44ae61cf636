#include "play/network_match.h"

#include <array>
#include <vector>

#include "base/strings.h"
#include "play/bots.h"
#include "play/policy_bot.h"
#include "traversal/fiber_tasks.h"

namespace lcfr::play {

absl::StatusOr<NetworkMatchResult> PlayNetworkMatch(const engine::LostCities& game,
                                                    const traversal::EvaluatorFactory& evaluators,
                                                    const std::string& opponent, int games,
                                                    uint64_t seed, int workers, int width,
                                                    PlayPolicy play, int network_id) {
  if (!MakeBot(opponent).ok()) {
    return absl::InvalidArgumentError(StrCat("unknown opponent '", opponent, "'"));
  }
  std::vector<GameOutcome> outcomes(games);
  std::vector<std::array<int64_t, 2>> counts(games);  // decisions, fallbacks
  traversal::RunFiberTasks(evaluators, games, workers, width,
                           [&](int64_t i, traversal::PolicyClient& policy) {
                             const int g = static_cast<int>(i);
                             PolicyBot network(&policy, play, game, network_id);
                             auto bot = MakeBot(opponent);
                             outcomes[g] = PlayMatchGame(game, network, **bot, g, seed);
                             counts[g] = {network.decisions(), network.fallbacks()};
                           });
  NetworkMatchResult result;
  for (int g = 0; g < games; ++g) {
    result.match.Add(outcomes[g], SeatOfA(g));
    result.decisions += counts[g][0];
    result.fallbacks += counts[g][1];
  }
  return result;
}

}  // namespace lcfr::play
