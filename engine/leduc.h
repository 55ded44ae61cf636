// Leduc poker (Southey et al., 2005), as in OpenSpiel: six cards (J, Q, K in two suits), one
// private card each and one board card, ante 1, two betting rounds with raise sizes 2 and 4,
// at most two raises per round, player 0 first in both rounds. Actions: 0 = fold (only when
// facing a bet), 1 = call (or check), 2 = raise (or bet). At showdown a pair with the board
// wins, else the higher rank; equal ranks split. Models EnumerableGame; the board card is dealt
// at the root and hidden until round two.
#ifndef LCFR_ENGINE_LEDUC_H_
#define LCFR_ENGINE_LEDUC_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/rng.h"
#include "engine/game.h"

namespace lcfr::engine {

class LeducPoker {
 public:
  static constexpr int kFold = 0;
  static constexpr int kCall = 1;
  static constexpr int kRaise = 2;
  static constexpr int kNumCards = 6;  // card c has rank c / 2
  static constexpr int kMaxRaises = 2;
  static constexpr int kMaxRoundActions = 4;  // e.g. call raise raise call
  // Encoding: [player to move: 2][own rank: 3][board rank, round two only: 3]
  // [round one: 4 slots x (call, raise)][round two: 4 slots x (call, raise)]
  // [the opponent's rank: 3, all 0 unless the view reveals it (HistoryView)].
  static constexpr int kEncodingSize = 27;
  static constexpr uint8_t kUnknownCard = 0xFF;

  struct State {
    std::array<uint8_t, 3> card{};  // player 0, player 1, board
    std::array<uint8_t, 2> contribution{1, 1};
    std::array<std::array<uint8_t, kMaxRoundActions>, 2> actions{};
    std::array<uint8_t, 2> length{};  // actions per round
    uint8_t round = 0;
    uint8_t raises = 0;  // in the current round
    int8_t folded = -1;  // the player who folded, -1 if none
    bool over = false;
    bool operator==(const State&) const = default;
  };
  struct UndoRecord {
    State before;
  };
  // What the player to move knows (engine/game.h): their seat and card, the board card once
  // revealed (kHiddenBoard in round one) and the actions.
  static constexpr uint8_t kHiddenBoard = 0xFF;
  struct View {
    uint8_t player = 0;
    uint8_t card = 0;
    uint8_t board = kHiddenBoard;
    uint8_t round = 0;
    std::array<uint8_t, 2> length{};
    std::array<std::array<uint8_t, kMaxRoundActions>, 2> actions{};
    uint8_t opponent_card = kUnknownCard;  // only in a history view
  };

  int num_actions() const { return 3; }
  int EncodingSize() const { return kEncodingSize; }
  // The layout above; a network trained on another version must not be loaded. 2: the
  // opponent's rank block (the history encoding) added.
  static constexpr int kEncodingVersion = 2;
  int EncodingVersion() const { return kEncodingVersion; }
  int MaxDecisions() const { return 2 * kMaxRoundActions; }
  double DefaultPayoffScale() const { return 1.0; }

  // A deal from explicit cards; precondition: distinct, each in [0, 6).
  static State DealCards(int card0, int card1, int board);
  State Deal(Rng& rng) const;
  // The 120 ordered deals, each with probability 1/120.
  std::vector<WeightedDeal<State>> AllDeals() const;

  static bool IsTerminal(const State& s) { return s.over; }
  static bool HitDecisionCap(const State&) { return false; }
  static int CurrentPlayer(const State& s) { return s.length[s.round] % 2; }
  uint32_t LegalMask(const State& s) const;
  UndoRecord ApplyUnchecked(State& s, int action) const;
  void Undo(State& s, int, const UndoRecord& undo) const { s = undo.before; }
  static View MoverView(const State& s);
  static void MoverView(const State& s, View& v) { v = MoverView(s); }
  // The mover's view with the opponent's card revealed, never the board card before round two
  // (engine/game.h).
  static void HistoryView(const State& s, View& v);
  // Every action is its own class (engine/game.h): balanced sampling is uniform.
  static int ActionClass(const View&, int action) { return action; }
  void Encode(const View& v, std::span<float> out) const;
  void Encode(const State& s, std::span<float> out) const { Encode(MoverView(s), out); }
  // Chips won by `player` at a terminal state.
  static double Payoff(const State& s, int player);

  // e.g. "Qs|Kh Jh rc/cf": the cards (player 0, player 1, board), then the actions of each
  // round (c call, r raise, f fold).
  static std::string ToString(const State& s);
};

static_assert(EnumerableGame<LeducPoker>);

}  // namespace lcfr::engine

#endif  // LCFR_ENGINE_LEDUC_H_
