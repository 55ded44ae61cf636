#include "search/match.h"

#include <memory>
#include <mutex>
#include <vector>

#include "base/strings.h"
#include "base/threads.h"
#include "play/bots.h"
#include "play/policy_bot.h"
#include "search/player.h"

namespace lcfr::search {

absl::StatusOr<SearchMatchResult> PlaySearchMatch(
    const engine::LostCities& game, const Blueprint& blueprint, const SearchConfig& config,
    const traversal::EvaluatorFactory& evaluators, const std::string& opponent, int games,
    uint64_t seed, int threads, const std::function<void(int)>& progress,
    const traversal::EvaluatorFactory& rollout_evaluators) {
  if (opponent != "self" && !play::MakeBot(opponent).ok()) {
    return absl::InvalidArgumentError(StrCat("unknown opponent '", opponent, "'"));
  }
  if (games < 1 || threads < 1) {
    return absl::InvalidArgumentError("a search match needs games and threads >= 1");
  }
  threads = std::min(threads, games);
  const int per_thread = config.workers + 1;
  // Every player, built here before any thread starts.
  struct Seat {
    std::unique_ptr<SearchPlayer> player;
    std::unique_ptr<traversal::Evaluator> evaluator;  // the "self" opponent's model
    traversal::PolicyClient client;
    std::unique_ptr<play::Bot> opponent;
  };
  std::vector<Seat> seats(threads);
  for (int t = 0; t < threads; ++t) {
    traversal::EvaluatorFactory mine;
    if (evaluators) mine = [&](int w) { return evaluators(t * per_thread + w); };
    traversal::EvaluatorFactory rollouts;
    if (rollout_evaluators) {
      rollouts = [&](int w) { return rollout_evaluators(t * config.workers + w); };
    }
    auto player = SearchPlayer::Create(game, blueprint, config, mine, rollouts);
    if (!player.ok()) return player.status();
    seats[t].player = *std::move(player);
    if (opponent == "self" && blueprint.is_model()) {
      seats[t].evaluator = evaluators(t * per_thread + config.workers);
      seats[t].client = traversal::PolicyClient::Direct(seats[t].evaluator.get());
      seats[t].opponent = std::make_unique<play::PolicyBot>(&seats[t].client, blueprint.play, game);
    } else {
      seats[t].opponent = *play::MakeBot(opponent == "self" ? blueprint.bot : opponent);
    }
  }
  std::vector<play::GameOutcome> outcomes(games);
  std::mutex mutex;
  int done = 0;
  RunOnThreads(threads, [&](int t) {
    const int begin = static_cast<int>(static_cast<int64_t>(games) * t / threads);
    const int end = static_cast<int>(static_cast<int64_t>(games) * (t + 1) / threads);
    for (int g = begin; g < end; ++g) {
      outcomes[g] = play::PlayMatchGame(game, *seats[t].player, *seats[t].opponent, g, seed);
      std::lock_guard<std::mutex> lock(mutex);
      ++done;
      if (progress) progress(done);
    }
  });
  SearchMatchResult result;
  for (int g = 0; g < games; ++g) result.match.Add(outcomes[g], play::SeatOfA(g));
  for (const Seat& seat : seats) result.search.Merge(seat.player->report());
  return result;
}

}  // namespace lcfr::search
