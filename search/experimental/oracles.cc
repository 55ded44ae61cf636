#include "search/experimental/oracles.h"

#include <algorithm>

namespace lcfr::search {

double OpponentHandMatch(const engine::State& world, const engine::State& truth) {
  const int opponent = 1 - truth.player;
  const int unknown = engine::OpponentUnknownCards(truth);
  if (unknown == 0) return -1;
  auto has = [](const engine::State& s, int p, engine::Card card) {
    const auto begin = s.hand[p].begin();
    return std::find(begin, begin + s.hand_count[p], card) != begin + s.hand_count[p];
  };
  int matched = 0;
  for (int j = 0; j < world.hand_count[opponent]; ++j) {
    const engine::Card card = world.hand[opponent][j];
    if ((world.known[opponent][engine::CardColor(card)] >> engine::CardIndex(card)) & 1) continue;
    matched += has(truth, opponent, card);
  }
  return static_cast<double>(matched) / unknown;
}

engine::State OracleWorld(const engine::State& s) {
  engine::State world = s;  // the hands stay sorted, as the engine keeps them
  std::fill(world.deck.begin() + world.deck_size, world.deck.end(), engine::kNoCard);
  return world;
}

engine::State OracleHandWorld(const engine::State& s, Rng& rng) {
  engine::State world = OracleWorld(s);
  engine::LostCities::ShuffleRemainingDeck(world, rng);  // only the deck's first deck_size cards
  return world;
}

bool OracleHandWorlds::Prepare(const Decision& decision, Workers&) {
  state_ = decision.state;
  return true;
}

engine::State OracleHandWorlds::World(int, Rng& rng) const { return OracleHandWorld(*state_, rng); }

bool OracleDeckWorlds::Prepare(const Decision& decision, Workers&) {
  state_ = decision.state;
  return true;
}

engine::State OracleDeckWorlds::World(int, Rng&) const { return OracleWorld(*state_); }

}  // namespace lcfr::search
