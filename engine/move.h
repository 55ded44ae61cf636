// A Lost Cities action id as a value. The action space of rules.md has 2 * H + 1 + C ids
// (H = hand_size, C = colors), one space for both decisions of a turn:
//   2 * slot        play the card in hand slot `slot` (a card decision)
//   2 * slot + 1    discard it
//   2 * H           draw from the deck (a draw decision)
//   2 * H + 1 + c   draw the top card of pile c
// Every place that reads or writes an action id (the engine, the agent protocol, `lcfr play`,
// records, bots, tests) goes through Decode and Encode instead of this arithmetic.
#ifndef LCFR_ENGINE_MOVE_H_
#define LCFR_ENGINE_MOVE_H_

#include <cstdint>

namespace lcfr::engine {

struct Move {
  enum class Kind : uint8_t { kPlay, kDiscard, kDrawDeck, kDrawPile };

  Kind kind = Kind::kDrawDeck;
  int index = 0;  // the hand slot (play, discard), the pile's color (draw pile); 0 for the deck

  static constexpr Move Play(int slot) { return {Kind::kPlay, slot}; }
  static constexpr Move Discard(int slot) { return {Kind::kDiscard, slot}; }
  static constexpr Move DrawDeck() { return {Kind::kDrawDeck, 0}; }
  static constexpr Move DrawPile(int color) { return {Kind::kDrawPile, color}; }

  // Precondition: 0 <= action < 2 * hand_size + 1 + colors.
  static constexpr Move Decode(int action, int hand_size) {
    if (action < 2 * hand_size) return {(action & 1) ? Kind::kDiscard : Kind::kPlay, action >> 1};
    if (action == 2 * hand_size) return DrawDeck();
    return DrawPile(action - 2 * hand_size - 1);
  }
  constexpr int Encode(int hand_size) const {
    switch (kind) {
      case Kind::kPlay:
        return 2 * index;
      case Kind::kDiscard:
        return 2 * index + 1;
      case Kind::kDrawDeck:
        return 2 * hand_size;
      case Kind::kDrawPile:
        break;
    }
    return 2 * hand_size + 1 + index;
  }

  // A card decision's move (play or discard a hand slot), not a draw.
  constexpr bool is_card() const { return kind == Kind::kPlay || kind == Kind::kDiscard; }
  bool operator==(const Move&) const = default;
};

}  // namespace lcfr::engine

#endif  // LCFR_ENGINE_MOVE_H_
