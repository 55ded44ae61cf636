// Worlds for search at play time (training/search.h): full states that agree with everything
// the player to move knows, the rest dealt at random.
//
// What the mover knows of a Lost Cities state: its own hand, both expeditions, the discard piles
// in order, the opponent's cards known from pile draws, the deck's size and the counters. What it
// does not: which of the other cards are in the opponent's hand and which are in the deck, and in
// what order the deck lies. A world keeps the first exactly and deals the second anew.
#ifndef LCFR_ENGINE_WORLDS_H_
#define LCFR_ENGINE_WORLDS_H_

#include <vector>

#include "engine/card.h"
#include "engine/lost_cities.h"
#include "engine/rng.h"

namespace lcfr::engine {

// The cards hidden from the player to move in `s`: the opponent's hand less its known cards,
// and the deck; sorted ascending, so a function of the mover's information alone.
std::vector<Card> SortedHiddenCards(const LostCities& game, const State& s);

// How many of the opponent's hand slots hold cards the player to move cannot see.
int OpponentUnknownCards(const State& s);

// A world: `s` with its hidden cards dealt anew, uniformly at random over the opponent's
// unknown hand slots and the deck order (every arrangement equally likely). Everything the mover
// knows stays as it is: its hand, both expeditions, the discard piles in order, the opponent's
// known cards, the hand and deck sizes, scores, phase and counters (MoverView is unchanged). The
// result depends only on that knowledge and on `rng`, never on where the hidden cards lay in `s`:
// the deck's entries past its size (the cards already drawn, kept for Undo) are cleared, so a
// world cannot be undone past its start.
State SampleWorld(const LostCities& game, const State& s, Rng& rng);

}  // namespace lcfr::engine

#endif  // LCFR_ENGINE_WORLDS_H_
