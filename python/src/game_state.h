// The Python package's game state: the engine's State with the game it belongs to, the deck it was
// dealt from and the actions taken since, so that it can undo them and write its game record.
#ifndef LCFR_PYTHON_SRC_GAME_STATE_H_
#define LCFR_PYTHON_SRC_GAME_STATE_H_

#include <vector>

#include "engine/lost_cities.h"
#include "io/record.h"
#include "python/src/common.h"

namespace lcfr::python {

struct GameState {
  GamePtr game;
  engine::State state;
  std::vector<engine::Card> deck;  // as dealt, top = last element (io/record.h)
  std::vector<int> actions;
  std::vector<engine::UndoRecord> undos;

  // Deals `deck` (every card of the rules once); errors name the card that is wrong.
  static absl::StatusOr<GameState> FromDeck(GamePtr game, std::vector<engine::Card> deck);
  // The deal of `seed`: the same as engine::LostCities::DealFromSeed.
  static GameState FromSeed(GamePtr game, uint64_t seed);

  // Applies a legal action; errors say why it is not legal.
  absl::Status Apply(int action);
  io::GameRecord Record() const { return {game->rules(), deck, actions}; }
};

}  // namespace lcfr::python

#endif  // LCFR_PYTHON_SRC_GAME_STATE_H_
