// Helpers shared by the engine tests.
#ifndef LCFR_TESTS_ENGINE_TEST_UTIL_H_
#define LCFR_TESTS_ENGINE_TEST_UTIL_H_

#include <algorithm>
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

// A state equal to `s` except that the cards hidden from the player to move (the opponent's
// unknown cards and the deck) are reshuffled among themselves.
inline State ResampleHidden(const LostCities& game, const State& s, Rng& rng) {
  std::vector<Card> hidden = game.HiddenFromMover(s);
  for (size_t i = hidden.size(); i > 1; --i) {
    std::swap(hidden[i - 1], hidden[rng.Uniform(static_cast<uint32_t>(i))]);
  }
  State t = s;
  const int opp = 1 - s.player;
  std::vector<Card> opp_hand;
  size_t next = 0;
  for (int j = 0; j < s.hand_count[opp]; ++j) {
    const Card card = s.hand[opp][j];
    const bool known = (s.known[opp][CardColor(card)] >> CardIndex(card)) & 1;
    opp_hand.push_back(known ? card : hidden[next++]);
  }
  std::sort(opp_hand.begin(), opp_hand.end());
  std::copy(opp_hand.begin(), opp_hand.end(), t.hand[opp].begin());
  for (int j = 0; j < s.deck_size; ++j) t.deck[j] = hidden[next++];
  return t;
}

}  // namespace lcfr::engine::testing

#endif  // LCFR_TESTS_ENGINE_TEST_UTIL_H_
