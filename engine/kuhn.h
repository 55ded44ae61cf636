// Kuhn poker (Kuhn, 1950): three cards J < Q < K, one card each, ante 1, one bet of 1.
// Player 0 acts first. Actions: 0 = pass (check or fold), 1 = bet (bet or call).
// Histories: pp, bp, bb, pbp, pbb (p = pass, b = bet); the game value for player 0 is -1/18.
// A toy game for checking CFR math exactly (engine/exact.h); models EnumerableGame.
#ifndef LCFR_ENGINE_KUHN_H_
#define LCFR_ENGINE_KUHN_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/rng.h"
#include "engine/game.h"

namespace lcfr::engine {

class KuhnPoker {
 public:
  static constexpr int kPass = 0;
  static constexpr int kBet = 1;
  static constexpr int kNumCards = 3;
  // Encoding: [player to move: 2][own card: 3][first action: pass, bet][second action: pass, bet]
  // [the opponent's card: 3, all 0 unless the view reveals it (HistoryView)].
  static constexpr int kEncodingSize = 12;
  static constexpr uint8_t kUnknownCard = 0xFF;

  struct State {
    std::array<uint8_t, 2> card{};  // 0 = J, 1 = Q, 2 = K
    std::array<uint8_t, 3> history{};
    uint8_t length = 0;  // actions taken
    bool operator==(const State&) const = default;
  };
  // Undo restores the (tiny) state from a copy.
  struct UndoRecord {
    State before;
  };
  // What the player to move knows (engine/game.h): their seat, their card and the actions; the
  // opponent's card only in a history view (kUnknownCard otherwise).
  struct View {
    uint8_t player = 0;
    uint8_t card = 0;
    uint8_t length = 0;
    std::array<uint8_t, 3> history{};
    uint8_t opponent_card = kUnknownCard;
  };

  int num_actions() const { return 2; }
  int EncodingSize() const { return kEncodingSize; }
  // The layout above; a network trained on another version must not be loaded. 2: the
  // opponent's card block (the history encoding) added.
  static constexpr int kEncodingVersion = 2;
  int EncodingVersion() const { return kEncodingVersion; }
  int MaxDecisions() const { return 3; }
  double DefaultPayoffScale() const { return 1.0; }

  // A deal from explicit cards; precondition: distinct, each in [0, 3).
  static State DealCards(int card0, int card1);
  State Deal(Rng& rng) const;
  // The six ordered deals, each with probability 1/6.
  std::vector<WeightedDeal<State>> AllDeals() const;

  static bool IsTerminal(const State& s);
  static bool HitDecisionCap(const State&) { return false; }
  static int CurrentPlayer(const State& s) { return s.length % 2; }
  // Both actions are legal at every decision; 0 at a terminal state.
  uint32_t LegalMask(const State& s) const { return IsTerminal(s) ? 0u : 3u; }
  UndoRecord ApplyUnchecked(State& s, int action) const;
  void Undo(State& s, int, const UndoRecord& undo) const { s = undo.before; }
  static View MoverView(const State& s);
  static void MoverView(const State& s, View& v) { v = MoverView(s); }
  // The mover's view with the opponent's card revealed (engine/game.h).
  static void HistoryView(const State& s, View& v);
  // Every action is its own class (engine/game.h): balanced sampling is uniform.
  static int ActionClass(const View&, int action) { return action; }
  void Encode(const View& v, std::span<float> out) const;
  void Encode(const State& s, std::span<float> out) const { Encode(MoverView(s), out); }
  // Chips won by `player` at a terminal state.
  static double Payoff(const State& s, int player);

  // "J", "Q", "K" and e.g. "Q|K pb" for a state.
  static std::string ToString(const State& s);
};

static_assert(EnumerableGame<KuhnPoker>);

}  // namespace lcfr::engine

#endif  // LCFR_ENGINE_KUHN_H_
