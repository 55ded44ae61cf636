// Worlds for search at play time (search/): full states that agree with everything
// the player to move knows, the rest dealt at random.
//
// What the mover knows of a Lost Cities state: its own hand, both expeditions, the discard piles
// in order, the opponent's cards known from pile draws, the deck's size and the counters. What it
// does not: which of the other cards are in the opponent's hand and which are in the deck, and in
// what order the deck lies. A world keeps the first exactly and deals the second anew.
#ifndef LCFR_ENGINE_WORLDS_H_
#define LCFR_ENGINE_WORLDS_H_

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "base/rng.h"
#include "engine/card.h"
#include "engine/lost_cities.h"
#include "engine/move.h"

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

// ---- Worlds with a past (search/opponent_inference.h, search/experimental/belief.h) -------
//
// A world with a past is a whole game, deal and moves, that agrees with everything one player
// saw of the real one. What a player sees of a move: who made it, its kind, and the card moved,
// except the card the other player drew from the deck.

// One decision as a player saw it. `card`: the card played or discarded, the card taken from a
// pile, the observer's own deck draw; kNoCard for the other player's deck draw.
struct SeenMove {
  uint8_t player = 0;
  Move::Kind kind = Move::Kind::kDrawDeck;
  Card card = kNoCard;
  bool operator==(const SeenMove&) const = default;
};

// `action`, taken in `before`, as `observer` saw it.
SeenMove SeeMove(const LostCities& game, const State& before, int action, int observer);

struct WorldHistory {
  State deal;                // the initial state
  std::vector<int> actions;  // the game's action ids from `deal`, one per seen move
  State now;                 // where they lead: a world of SampleWorld's kind
};

// A world with a past for the player to move in `s`, who saw `seen` (one entry per decision
// so far, s.decisions of them), drawn uniformly from every deal that agrees with what it saw
// (all deals being equally likely): the opponent's unknown hand slots and the deck as
// SampleWorld deals them, and, walking the game backwards, each of the opponent's deck draws one
// of the cards it held just after it, uniformly, except cards it is known to have taken from a
// pile before that draw (the number of choices is then the same whatever was chosen before, so
// uniform choices give uniform deals). `now` keeps everything the mover knows, as SampleWorld's
// worlds do; like them it depends on that knowledge and `rng` alone. Errors: `seen` does not fit
// `s` (wrong length, a card where it cannot be, a move that the rebuilt game refuses).
absl::StatusOr<WorldHistory> SampleWorldHistory(const LostCities& game, const State& s,
                                                std::span<const SeenMove> seen, Rng& rng);

}  // namespace lcfr::engine

#endif  // LCFR_ENGINE_WORLDS_H_
