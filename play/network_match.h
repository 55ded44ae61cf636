// A network's match: its policy (play/policy_bot.h) against a bot on PlayMatch's paired deals,
// many games at once as fibers so that the network's decisions are batched (one forward per
// batch). Torch-free: the networks are asked through traversal::Evaluator.
#ifndef LCFR_PLAY_NETWORK_MATCH_H_
#define LCFR_PLAY_NETWORK_MATCH_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "engine/lost_cities.h"
#include "play/match.h"
#include "play/play_policy.h"
#include "traversal/evaluator.h"

namespace lcfr::play {

// A network's match: the games, and its regret-matching fallbacks.
struct NetworkMatchResult {
  MatchResult match;
  int64_t decisions = 0;
  int64_t fallbacks = 0;
  double fallback_rate() const {
    return decisions ? static_cast<double>(fallbacks) / static_cast<double>(decisions) : 0.0;
  }
};

// `games` games of a network's policy (as A) against `opponent` (as B), PlayMatch's deals and
// seats, `workers` threads with `width` games in flight each, `evaluators(w)` the network of
// thread w; `network` >= 0 names the network outright (PolicyBot). Deterministic given the seed.
absl::StatusOr<NetworkMatchResult> PlayNetworkMatch(const engine::LostCities& game,
                                                    const traversal::EvaluatorFactory& evaluators,
                                                    const std::string& opponent, int games,
                                                    uint64_t seed, int workers, int width = 64,
                                                    PlayPolicy play = {}, int network = -1);

}  // namespace lcfr::play

#endif  // LCFR_PLAY_NETWORK_MATCH_H_
