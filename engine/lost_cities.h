// The Lost Cities game engine: a trivially copyable State and the LostCities rules object that
// deals, lists legal actions, applies and undoes them in place, scores, and encodes information
// states for the networks.
//
// Actions (rules.md): one action space of size 2 * hand_size + 1 + colors, shared by both
// decisions of a turn:
//   2 * slot       play the card in hand slot `slot`
//   2 * slot + 1   discard it
//   2 * hand_size  draw from the deck
//   2 * hand_size + 1 + c  draw from the discard pile of color c
// Hand slot order: a hand is kept sorted by card id (engine/card.h), i.e. by color Y B W G R P,
// then wagers, then ascending value. Slot k is the k-th card in that order, for every consumer
// (networks, bots, records, the agent protocol).
//
// Thread safety: a LostCities object is immutable after construction and may be shared; a State
// is a plain value owned by its user.
#ifndef LCFR_ENGINE_LOST_CITIES_H_
#define LCFR_ENGINE_LOST_CITIES_H_

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/check.h"
#include "base/rng.h"
#include "engine/card.h"
#include "engine/move.h"
#include "engine/rules.h"

namespace lcfr::engine {

enum class Phase : uint8_t { kCard = 0, kDraw = 1 };

enum class EndReason : uint8_t {
  kNotOver = 0,
  kDeckEmpty = 1,    // a draw took the last card of the deck (the normal end)
  kNoLegalDraw = 2,  // defensive rule: the draw decision had no legal draw
  kDecisionCap = 3,  // max_decisions reached; scored as it stands
};
const char* EndReasonName(EndReason reason);

using ActionMask = uint32_t;  // bit a set = action a legal; kMaxActions <= 32

// The full game state, including hidden information (the opponent's hand, the deck order).
// Fixed-size, no heap, trivially copyable; operator== compares every field, so entries past a
// container's size are kept at kNoCard to make equality exact after undo.
struct State {
  // hand[p][0..hand_count[p]) sorted ascending by card id; the rest kNoCard.
  std::array<std::array<Card, kMaxHandSize>, 2> hand;
  std::array<uint8_t, 2> hand_count;
  // Per player and color, a mask of card indices (bit = CardIndex) in the expedition.
  std::array<std::array<uint16_t, kMaxColors>, 2> expedition;
  // Per player and color, cards in the player's hand that both players know about because the
  // player took them from a discard pile. Always a subset of the hand.
  std::array<std::array<uint16_t, kMaxColors>, 2> known;
  // Cached sum of face values per expedition and total score per player.
  std::array<std::array<int16_t, kMaxColors>, 2> expedition_sum;
  std::array<int32_t, 2> score;
  // Discard piles, bottom first, as card indices within the color; past pile_size: kNoCard.
  std::array<std::array<uint8_t, kMaxCardsPerColor>, kMaxColors> pile;
  std::array<uint8_t, kMaxColors> pile_size;
  // The deck order as dealt; the top is deck[deck_size - 1]. Entries past deck_size are the
  // cards already drawn (kept so that undo can restore them).
  std::array<Card, kMaxDeckSize> deck;
  uint8_t deck_size;
  uint8_t player;  // whose decision it is
  Phase phase;
  int8_t last_discard;  // color discarded to in this turn's card decision, -1 if none
  uint16_t decisions;   // decisions taken so far (both players)
  EndReason end;

  bool operator==(const State&) const = default;
};
static_assert(std::is_trivially_copyable_v<State>);

// A state with no cards anywhere: every container empty (kNoCard past its size, padding
// zeroed so byte-wise comparisons are stable), player 0 to make a card decision.
State EmptyState();

// Index of the highest set bit, -1 for 0.
inline int HighestBit(uint32_t mask) { return 31 - std::countl_zero(mask); }

// What Apply() returns and Undo() needs to restore a state exactly.
struct UndoRecord {
  Card card;            // the card played, discarded or drawn
  int8_t last_discard;  // State::last_discard before the action
  uint8_t was_known;    // whether the card's bit in State::known was set before the action
};

// What the player to move knows (engine/game.h): the information state the encoder encodes
// and a memory stores (98 bytes, against 2,472 for the 618 floats it encodes to). Mover-relative:
// index 0 of a per-player pair is the mover, 1 the opponent. No padding, and every entry past a
// container's size is kNoCard, so equal information states have equal bytes.
struct View {
  std::array<std::array<uint16_t, kMaxColors>, 2> expedition;  // card-index masks
  std::array<std::array<int16_t, kMaxColors>, 2> expedition_sum;
  std::array<uint16_t, kMaxColors> opponent_known;  // State::known of the opponent
  std::array<uint16_t, kMaxColors> piled;           // the card indices in each discard pile
  uint16_t decisions;
  std::array<Card, kMaxHandSize> hand;       // sorted ascending, kNoCard past hand_count
  std::array<uint8_t, kMaxColors> pile_top;  // card index of each pile's top, kNoCard if empty
  uint8_t hand_count;
  uint8_t deck_size;
  Phase phase;
  int8_t last_discard;
  EndReason end;
  uint8_t player;  // the mover's seat

  bool operator==(const View&) const = default;
};
static_assert(std::is_trivially_copyable_v<View>);
static_assert(std::has_unique_object_representations_v<View>);

// Models the Game concept of engine/game.h.
class LostCities {
 public:
  using State = ::lcfr::engine::State;
  using UndoRecord = ::lcfr::engine::UndoRecord;
  using View = ::lcfr::engine::View;

  // Precondition: Validate(rules).ok(). Use Create() for untrusted rules.
  explicit LostCities(const Rules& rules = Rules{});
  static absl::StatusOr<LostCities> Create(const Rules& rules);

  const Rules& rules() const { return rules_; }
  int num_actions() const { return num_actions_; }
  // Action ids and what they mean (engine/move.h).
  Move DecodeAction(int action) const { return Move::Decode(action, rules_.hand_size); }
  int EncodeMove(const Move& move) const { return move.Encode(rules_.hand_size); }
  int deck_action() const { return EncodeMove(Move::DrawDeck()); }
  int pile_action(int color) const { return EncodeMove(Move::DrawPile(color)); }
  int MaxDecisions() const { return rules_.max_decisions; }
  // Traversals divide payoffs (score differences) by this: 100 points map to 1.
  static double DefaultPayoffScale() { return 100.0; }

  // ---- Dealing -------------------------------------------------------------------------
  // The cards of the rule set in ascending id order (an unshuffled deck, bottom first).
  std::vector<Card> SortedDeck() const;
  // Deals from an explicit order: `deck` holds every card of the rule set once, the top is the
  // last element; hands are dealt one card at a time, player 0 first. Errors name the problem.
  absl::StatusOr<State> DealFromDeck(std::span<const Card> deck) const;
  // Deals from a seed through the portable Rng (same seed, same deal everywhere).
  State DealFromSeed(uint64_t seed) const;
  // The full deck shuffled with `rng` (Fisher-Yates), top = last element.
  std::vector<Card> ShuffledDeck(Rng& rng) const;
  // Deals DealFromDeck(ShuffledDeck(rng)).
  State Deal(Rng& rng) const;
  // Reorders the cards still in the deck uniformly at random (Fisher-Yates with `rng`): the
  // chance still to come, drawn anew. Neither player's view changes (the deck order is hidden
  // from both), so `s` stays in both players' information states.
  static void ShuffleRemainingDeck(State& s, Rng& rng);

  // ---- Queries -------------------------------------------------------------------------
  static bool IsTerminal(const State& s) { return s.end != EndReason::kNotOver; }
  // Whether `s` is a game's opening position: no decision taken, the deck as dealt.
  bool IsDeal(const State& s) const {
    return s.decisions == 0 && s.phase == Phase::kCard &&
           s.deck_size == rules_.deck_size() - 2 * rules_.hand_size;
  }
  static int CurrentPlayer(const State& s) { return s.player; }
  static bool HitDecisionCap(const State& s) { return s.end == EndReason::kDecisionCap; }
  // Legal actions of the player to move; 0 iff the state is terminal.
  ActionMask LegalMask(const State& s) const;
  ActionMask LegalMask(const View& v) const;  // the same actions, from the mover's view
  std::vector<int> LegalActions(const State& s) const;
  // The card an action names: the hand card for a card decision, the card that would be
  // drawn for a pile draw, kNoCard for a deck draw. Precondition: the action is legal.
  Card ActionCard(const State& s, int action) const;
  // Score of one color for one player (0 if the expedition is empty).
  int ColorScore(const State& s, int player, int color) const {
    return ColorScore(s.expedition[player][color], s.expedition_sum[player][color]);
  }
  // The same, from an expedition's card mask and cached face-value sum.
  int ColorScore(uint32_t expedition, int sum) const;
  // Cached total score; equals the sum of ColorScore over colors.
  static int Score(const State& s, int player) { return s.score[player]; }
  // Payoff to `player`: own score minus the opponent's.
  static int Payoff(const State& s, int player) { return s.score[player] - s.score[1 - player]; }

  // ---- Transitions ---------------------------------------------------------------------
  // Applies a legal action in place. Precondition: the action is legal (DCHECKed only).
  UndoRecord ApplyUnchecked(State& s, int action) const;
  // Exactly restores the state before ApplyUnchecked(s, action) returned `undo`.
  void Undo(State& s, int action, const UndoRecord& undo) const;
  // For untrusted input: applies the action or returns an error saying why it is illegal.
  absl::Status ApplyChecked(State& s, int action) const;
  // "play R7", "discard B*", "draw deck", "draw G".
  std::string ActionName(const State& s, int action) const;

  // ---- Information-state encoding --------------------------------------------------------
  // Writes the information state of the player to move into `out` (size EncodingSize()).
  // Observer-relative ("mine" = the player to move) and reads only what that player can know:
  // two states differing only in the opponent's unknown cards and the deck order encode
  // identically. Layout, with C = colors, K = ranks + wagers, H = hand_size, A = num_actions:
  //
  //   [0, 7*C*K)  card planes, plane*C*K + color*K + index, 1.0 where true:
  //       0 in my hand          1 in my expedition        2 in the opponent's expedition
  //       3 in a discard pile   4 top of its discard pile 5 known in the opponent's hand
  //       6 unseen by me (in the deck or the opponent's hand, not known)
  //     wagers are interchangeable: a plane holding n wagers of a color sets that color's
  //     first n wager indices, whichever wager cards they are
  //   then C blocks of kColorFeatures, for each color:
  //       0..4  my expedition: sum/max_sum, cards/K, wagers/W, last numbered rank/ranks,
  //             color score/kScoreScale
  //       5..9  the opponent's expedition, same five
  //       10 cards in my hand I can play now/H   11 the pile top is playable for me
  //       12 discard pile size/K                 13 unseen cards/K
  //       14 I just discarded to this pile
  //   then H blocks of (C + kSlotFeatures), for each hand slot: color one-hot (C), is wager,
  //       value/max value, playable now, slot occupied, playing it starts an expedition,
  //       (my color score after playing it - before)/kScoreScale (0 if not playable), the
  //       opponent has started this color and could still play it there
  //   then kGlobalFeatures: deck size/initial deck size, card decision, draw decision,
  //       (my score - opponent's)/kScoreScale, decisions/max_decisions
  //   then A entries: the legal mask (1.0 legal)
  // Encode(state) is Encode(MoverView(state)).
  // Classic rules: 420 + 75 + 96 + 5 + 22 = 618 floats.
  static constexpr int kCardPlanes = 7;
  static constexpr int kColorFeatures = 15;
  static constexpr int kSlotFeatures = 7;
  static constexpr int kGlobalFeatures = 5;
  static constexpr float kScoreScale = 100.0f;
  int EncodingSize() const { return encoding_size_; }
  // The version of the layout above, written into every saved network and checked on load: a
  // change of the layout (even one that keeps the size) bumps it, and
  // tests/golden/encodings.txt pins it. 1: the 618-float layout of networks.pt format 2.
  static constexpr int kEncodingVersion = 1;
  int EncodingVersion() const { return kEncodingVersion; }
  void Encode(const View& v, std::span<float> out) const;
  void Encode(const State& s, std::span<float> out) const { Encode(MoverView(s), out); }
  // The information state of the player to move: reads nothing hidden from them. The second
  // form writes it in place (the traversals' hot path: no copy of a returned value).
  View MoverView(const State& s) const {
    View v;
    MoverView(s, v);
    return v;
  }
  void MoverView(const State& s, View& v) const;
  // The mover's view with the opponent's whole hand revealed (engine/game.h): opponent_known
  // holds every card of it, so Encode sets plane 5 to that hand and plane 6 to the deck alone.
  // Never the deck order.
  void HistoryView(const State& s, View& v) const;

  // ---- Action classes (engine/game.h), for the balanced sampling policy --------------------
  // Read from the mover's view: continue an expedition (a numbered card on a started one), open
  // one (a numbered card on an empty one), play a wager, discard a card useless to both (neither
  // player can still play it: both expeditions started and past it), discard another, draw the
  // deck, draw a pile.
  enum ActionClassId : int {
    kContinue = 0,
    kOpen = 1,
    kWager = 2,
    kDiscardUseless = 3,
    kDiscardOther = 4,
    kDrawDeck = 5,
    kDrawPile = 6,
  };
  static constexpr int kNumActionClasses = 7;
  int ActionClass(const View& v, int action) const;

  // ---- Action meanings (the cards network, inference/cards_net.h) ------------------------
  // What a slot action is, independent of the hand slot: the card's color and type (type 0 =
  // a wager, equal wagers merged; 1 + r = the numbered card of rank index r) with play or
  // discard, a pile draw, or the deck. Numbering, with T = 1 + ranks: per color c a block of
  // 2T + 1 meanings, c * (2T + 1) + [play type t: t | discard type t: T + t | draw pile c: 2T];
  // then the deck, colors * (2T + 1). Classic rules: 106 meanings. Read from the mover's view.
  int NumActionMeanings() const { return rules_.colors * (2 * (1 + rules_.ranks) + 1) + 1; }
  int ActionMeaning(const View& v, int action) const;

  // Cards that the player to move cannot see: the opponent's hand minus its known cards,
  // plus the deck. (Used by tests and by determinization; reads hidden information.)
  std::vector<Card> HiddenFromMover(const State& s) const;

  // Recomputes the cached expedition sums and scores from the expeditions (for states built
  // by hand, e.g. from an agent-protocol observation).
  void RefreshCaches(State& s) const;

  // Checks every invariant of a state (card conservation, sorted hands, ascending expeditions,
  // the wager rule, cached sums and scores, phase/hand sizes). Returns the first violation.
  absl::Status CheckInvariants(const State& s) const;

 private:
  void RecomputeScore(State& s, int player, int color, int old_color_score) const;
  // The legal mask from what a State and a View both hold (the mover's hand and expeditions;
  // pile_nonempty(c) says whether discard pile c has a card).
  template <typename PileNonEmpty>
  ActionMask LegalMaskOf(EndReason end, Phase phase, const Card* hand, int hand_count,
                         const std::array<uint16_t, kMaxColors>& expedition, int deck_size,
                         int last_discard, PileNonEmpty pile_nonempty) const;
  void InsertIntoHand(State& s, int player, Card card) const;
  // Precomputed per card index: face value, and the threshold shift that makes playing it
  // legal iff (expedition >> shift) == 0.
  Rules rules_;
  int num_actions_;
  int encoding_size_;
  std::array<int8_t, kMaxCardsPerColor> value_of_index_{};
  std::array<uint8_t, kMaxCardsPerColor> play_shift_{};
  uint16_t color_mask_;  // all card indices of a color
  uint16_t wager_mask_;  // the wager indices
  int max_color_sum_;
  // Reciprocals of the encoding's normalisers (0 where the normaliser is 0).
  float inv_max_color_sum_, inv_cards_per_color_, inv_wagers_, inv_ranks_, inv_hand_size_,
      inv_max_value_, inv_initial_deck_, inv_max_decisions_;
};

}  // namespace lcfr::engine

#endif  // LCFR_ENGINE_LOST_CITIES_H_
