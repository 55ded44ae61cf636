// The searching player's match (lcfr eval --search): games against a bot or against the
// blueprint without search, on PlayMatch's paired deals and seats. Torch-free.
#ifndef LCFR_SEARCH_MATCH_H_
#define LCFR_SEARCH_MATCH_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "engine/lost_cities.h"
#include "play/match.h"
#include "search/config.h"
#include "search/report.h"
#include "traversal/evaluator.h"

namespace lcfr::search {

struct SearchMatchResult {
  play::MatchResult match;
  SearchReport search;
};

// `games` games of the searching player (as A) against `opponent` (as B): a bot's name, or "self",
// the blueprint without search. The games run on `threads` threads (contiguous ranges in game
// order), each with its own players; a player searches with config.workers threads of its own.
// Before any thread starts, `evaluators(i)` is called for i in [0, threads x (config.workers +
// 1)): t x (config.workers + 1) + w for thread t's searching player's worker w, and
// t x (config.workers + 1) + config.workers for its "self" opponent; with config.rollout_model,
// `rollout_evaluators(i)` for i in [0, threads x config.workers): t x config.workers + w.
// `progress(done)` is called after each game (from the game's thread, under a lock).
// Deterministic given the seed and a budget in rollouts.
absl::StatusOr<SearchMatchResult> PlaySearchMatch(
    const engine::LostCities& game, const Blueprint& blueprint, const SearchConfig& config,
    const traversal::EvaluatorFactory& evaluators, const std::string& opponent, int games,
    uint64_t seed, int threads, const std::function<void(int)>& progress = {},
    const traversal::EvaluatorFactory& rollout_evaluators = {});

}  // namespace lcfr::search

#endif  // LCFR_SEARCH_MATCH_H_
