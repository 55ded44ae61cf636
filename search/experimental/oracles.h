// Diagnostics that cheat (lcfr eval --oracle-hand, --oracle-deck; docs/experiments.md): worlds
// read from the true state the search is handed, to measure what a perfect belief could gain.
// They are no way to play. Torch-free.
#ifndef LCFR_SEARCH_EXPERIMENTAL_ORACLES_H_
#define LCFR_SEARCH_EXPERIMENTAL_ORACLES_H_

#include "engine/lost_cities.h"
#include "search/steps.h"

namespace lcfr::search {

// `s` with the opponent's true hand, and only the deck's order drawn anew (uniformly; past its
// size cleared, as SampleWorld does): what a search over it gains over uniform worlds bounds what
// any belief over the opponent's hand could gain.
engine::State OracleHandWorld(const engine::State& s, Rng& rng);
// The true state itself, the deck past its size cleared: a search over it knows every hidden
// card, the deck's future order included (a clairvoyant's bound).
engine::State OracleWorld(const engine::State& s);
// The share of a world's unknown opponent cards (its hand less the cards known to be there) that
// the opponent truly holds in `truth`, for the player to move there; uniform worlds score
// OpponentUnknownCards(truth) / (that + the deck's size) on average. -1 when the opponent has no
// unknown card.
double OpponentHandMatch(const engine::State& world, const engine::State& truth);

class OracleHandWorlds : public WorldSource {
 public:
  bool Prepare(const Decision& decision, Workers&) override;
  engine::State World(int round, Rng& rng) const override;

 private:
  const engine::State* state_ = nullptr;
};

class OracleDeckWorlds : public WorldSource {
 public:
  bool Prepare(const Decision& decision, Workers&) override;
  engine::State World(int round, Rng& rng) const override;

 private:
  const engine::State* state_ = nullptr;
};

}  // namespace lcfr::search

#endif  // LCFR_SEARCH_EXPERIMENTAL_ORACLES_H_
