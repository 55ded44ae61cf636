// Helpers shared by the engine tests.
#ifndef LCFR_TESTS_ENGINE_TEST_UTIL_H_
#define LCFR_TESTS_ENGINE_TEST_UTIL_H_

#include <string>
#include <vector>

#include "engine/lost_cities.h"

namespace lcfr::engine::testing {

// Puts the named cards (e.g. {"R*", "R2"}) into player p's expedition of a fresh state and
// refreshes the caches.
inline State WithExpedition(const LostCities& game, int p, const std::vector<std::string>& names) {
  State s = game.DealFromSeed(1);
  for (auto& row : s.expedition) row.fill(0);
  CardPool pool(game.rules());
  for (const std::string& name : names) {
    const Card card = *pool.Take(name);
    s.expedition[p][CardColor(card)] |= static_cast<uint16_t>(1u << CardIndex(card));
  }
  game.RefreshCaches(s);
  return s;
}

// A random valid rule set (for the conformance suite's variants).
inline Rules RandomRules(Rng& rng) {
  Rules r;
  for (;;) {
    r.colors = 1 + static_cast<int>(rng.Uniform(6));
    r.ranks = 1 + static_cast<int>(rng.Uniform(12));
    r.wagers = static_cast<int>(rng.Uniform(5));
    r.min_rank = static_cast<int>(rng.Uniform(4));
    r.hand_size = 1 + static_cast<int>(rng.Uniform(10));
    r.expedition_cost = static_cast<int>(rng.Uniform(30));
    r.bonus_threshold = 1 + static_cast<int>(rng.Uniform(10));
    r.bonus = static_cast<int>(rng.Uniform(30));
    r.max_decisions = 50 + static_cast<int>(rng.Uniform(500));
    if (Validate(r).ok()) return r;
  }
}

}  // namespace lcfr::engine::testing

#endif  // LCFR_TESTS_ENGINE_TEST_UTIL_H_
