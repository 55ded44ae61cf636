#include "engine/lost_cities.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <span>

#include "base/strings.h"

namespace lcfr::engine {
namespace {

// Calls fn(index) for every set bit of mask, lowest first.
template <typename Fn>
void ForEachBit(uint32_t mask, Fn&& fn) {
  while (mask != 0) {
    fn(std::countr_zero(mask));
    mask &= mask - 1;
  }
}

}  // namespace

State EmptyState() {
  State s;
  std::memset(&s, 0, sizeof(s));
  for (auto& hand : s.hand) hand.fill(kNoCard);
  for (auto& pile : s.pile) pile.fill(kNoCard);
  s.deck.fill(kNoCard);
  s.phase = Phase::kCard;
  s.last_discard = -1;
  s.end = EndReason::kNotOver;
  return s;
}

const char* EndReasonName(EndReason reason) {
  switch (reason) {
    case EndReason::kNotOver:
      return "not_over";
    case EndReason::kDeckEmpty:
      return "deck_empty";
    case EndReason::kNoLegalDraw:
      return "no_legal_draw";
    case EndReason::kDecisionCap:
      return "decision_cap";
  }
  return "unknown";
}

LostCities::LostCities(const Rules& rules) : rules_(rules) {
  const absl::Status status = Validate(rules);
  LCFR_CHECK(status.ok()) << status.message();
  const int k = rules.cards_per_color();
  num_actions_ = rules.num_actions();
  encoding_size_ = kCardPlanes * rules.colors * k + kColorFeatures * rules.colors +
                   rules.hand_size * (rules.colors + kSlotFeatures) + kGlobalFeatures +
                   num_actions_;
  color_mask_ = static_cast<uint16_t>((1u << k) - 1);
  wager_mask_ = static_cast<uint16_t>((1u << rules.wagers) - 1);
  max_color_sum_ = 0;
  for (int i = 0; i < k; ++i) {
    const int value = i < rules.wagers ? 0 : rules.min_rank + i - rules.wagers;
    value_of_index_[i] = static_cast<int8_t>(value);
    // A numbered card needs every card in the expedition below it; a wager needs no numbered
    // card there (wagers may follow wagers).
    play_shift_[i] = static_cast<uint8_t>(std::max(i, rules.wagers));
    max_color_sum_ += value;
  }
  LCFR_CHECK_LE(max_color_sum_, 32767);
  auto inv = [](int x) { return x > 0 ? 1.0f / static_cast<float>(x) : 0.0f; };
  inv_max_color_sum_ = inv(max_color_sum_);
  inv_cards_per_color_ = inv(k);
  inv_wagers_ = inv(rules.wagers);
  inv_ranks_ = inv(rules.ranks);
  inv_hand_size_ = inv(rules.hand_size);
  inv_max_value_ = inv(rules.min_rank + rules.ranks - 1);
  inv_initial_deck_ = inv(rules.deck_size() - 2 * rules.hand_size);
  inv_max_decisions_ = inv(rules.max_decisions);
}

absl::StatusOr<LostCities> LostCities::Create(const Rules& rules) {
  if (absl::Status status = Validate(rules); !status.ok()) return status;
  return LostCities(rules);
}

std::vector<Card> LostCities::SortedDeck() const {
  std::vector<Card> deck;
  deck.reserve(static_cast<size_t>(rules_.deck_size()));
  for (int c = 0; c < rules_.colors; ++c) {
    for (int i = 0; i < rules_.cards_per_color(); ++i) deck.push_back(MakeCard(c, i));
  }
  return deck;
}

absl::StatusOr<State> LostCities::DealFromDeck(std::span<const Card> deck) const {
  const int n = rules_.deck_size();
  if (static_cast<int>(deck.size()) != n) {
    return absl::InvalidArgumentError(
        StrCat("deck has ", deck.size(), " cards; these rules need exactly ", n));
  }
  uint64_t seen[2] = {0, 0};
  for (size_t pos = 0; pos < deck.size(); ++pos) {
    const Card card = deck[pos];
    if (card == kNoCard || CardColor(card) >= rules_.colors ||
        CardIndex(card) >= rules_.cards_per_color()) {
      return absl::InvalidArgumentError(
          StrCat("deck[", pos, "]: card id ", int{card}, " is not a card of these rules"));
    }
    uint64_t& word = seen[card >> 6];
    const uint64_t bit = uint64_t{1} << (card & 63);
    if (word & bit) {
      return absl::InvalidArgumentError(
          StrCat("deck[", pos, "]: card ", CardName(rules_, card), " appears twice"));
    }
    word |= bit;
  }

  State s = EmptyState();
  const int h = rules_.hand_size;
  for (int k = 0; k < 2 * h; ++k) {
    InsertIntoHand(s, k % 2, deck[static_cast<size_t>(n - 1 - k)]);
  }
  s.deck_size = static_cast<uint8_t>(n - 2 * h);
  std::copy_n(deck.begin(), s.deck_size, s.deck.begin());
  return s;
}

std::vector<Card> LostCities::ShuffledDeck(Rng& rng) const {
  std::vector<Card> deck = SortedDeck();
  Shuffle(deck, rng);
  return deck;
}

void LostCities::ShuffleRemainingDeck(State& s, Rng& rng) {
  Shuffle(std::span<Card>(s.deck.data(), s.deck_size), rng);
}

State LostCities::Deal(Rng& rng) const {
  absl::StatusOr<State> s = DealFromDeck(ShuffledDeck(rng));
  LCFR_CHECK(s.ok()) << s.status().message();
  return *s;
}

State LostCities::DealFromSeed(uint64_t seed) const {
  Rng rng(seed);
  return Deal(rng);
}

template <typename PileNonEmpty>
ActionMask LostCities::LegalMaskOf(EndReason end, Phase phase, const Card* hand, int hand_count,
                                   const std::array<uint16_t, kMaxColors>& expedition,
                                   int deck_size, int last_discard,
                                   PileNonEmpty pile_nonempty) const {
  if (end != EndReason::kNotOver) return 0;
  ActionMask mask = 0;
  if (phase == Phase::kCard) {
    for (int k = 0; k < hand_count; ++k) {
      const Card card = hand[k];
      const bool playable = (expedition[CardColor(card)] >> play_shift_[CardIndex(card)]) == 0;
      mask |= (ActionMask{2} | ActionMask{playable}) << (2 * k);
    }
    return mask;
  }
  if (deck_size > 0) mask |= ActionMask{1} << deck_action();
  for (int c = 0; c < rules_.colors; ++c) {
    if (pile_nonempty(c) && c != last_discard) mask |= ActionMask{1} << pile_action(c);
  }
  return mask;
}

ActionMask LostCities::LegalMask(const State& s) const {
  const int p = s.player;
  return LegalMaskOf(s.end, s.phase, s.hand[p].data(), s.hand_count[p], s.expedition[p],
                     s.deck_size, s.last_discard, [&s](int c) { return s.pile_size[c] > 0; });
}

ActionMask LostCities::LegalMask(const View& v) const {
  return LegalMaskOf(v.end, v.phase, v.hand.data(), v.hand_count, v.expedition[0], v.deck_size,
                     v.last_discard, [&v](int c) { return v.pile_top[c] != kNoCard; });
}

void LostCities::MoverView(const State& s, View& v) const {
  const int me = s.player;
  const int opp = 1 - me;
  v.expedition = {s.expedition[me], s.expedition[opp]};
  v.expedition_sum = {s.expedition_sum[me], s.expedition_sum[opp]};
  v.opponent_known = s.known[opp];
  v.piled = {};
  v.pile_top.fill(kNoCard);  // colors past the rules' stay empty
  for (int c = 0; c < rules_.colors; ++c) {
    const int size = s.pile_size[c];
    uint32_t piled = 0;
    for (int j = 0; j < size; ++j) piled |= 1u << s.pile[c][j];
    v.piled[c] = static_cast<uint16_t>(piled);
    if (size > 0) v.pile_top[c] = s.pile[c][size - 1];
  }
  v.decisions = s.decisions;
  v.hand = s.hand[me];
  v.hand_count = s.hand_count[me];
  v.deck_size = s.deck_size;
  v.phase = s.phase;
  v.last_discard = s.last_discard;
  v.end = s.end;
  v.player = s.player;
}

void LostCities::HistoryView(const State& s, View& v) const {
  MoverView(s, v);
  const int opp = 1 - s.player;
  v.opponent_known = {};
  for (int j = 0; j < s.hand_count[opp]; ++j) {
    const Card card = s.hand[opp][j];
    v.opponent_known[CardColor(card)] |= static_cast<uint16_t>(1u << CardIndex(card));
  }
}

int LostCities::ActionClass(const View& v, int action) const {
  const Move move = DecodeAction(action);
  if (move.kind == Move::Kind::kDrawDeck) return kDrawDeck;
  if (move.kind == Move::Kind::kDrawPile) return kDrawPile;
  const Card card = v.hand[move.index];
  const int c = CardColor(card);
  const int i = CardIndex(card);
  // A card of index i can still go on an expedition iff nothing at or above max(i, wagers) is
  // there (an empty expedition takes anything).
  auto playable_on = [&](uint32_t expedition) {
    return (expedition >> std::max(i, rules_.wagers)) == 0;
  };
  if (move.kind == Move::Kind::kPlay) {
    if (i < rules_.wagers) return kWager;
    return v.expedition[0][c] != 0 ? kContinue : kOpen;
  }
  const uint32_t mine = v.expedition[0][c];
  const uint32_t theirs = v.expedition[1][c];
  const bool useless = mine != 0 && theirs != 0 && !playable_on(mine) && !playable_on(theirs);
  return useless ? kDiscardUseless : kDiscardOther;
}

int LostCities::ActionMeaning(const View& v, int action) const {
  const int types = 1 + rules_.ranks;
  const int block = 2 * types + 1;
  const Move move = DecodeAction(action);
  if (move.kind == Move::Kind::kDrawDeck) return rules_.colors * block;
  if (move.kind == Move::Kind::kDrawPile) return move.index * block + 2 * types;
  const Card card = v.hand[move.index];
  const int i = CardIndex(card);
  const int type = i < rules_.wagers ? 0 : 1 + (i - rules_.wagers);
  return CardColor(card) * block + (move.kind == Move::Kind::kDiscard ? types : 0) + type;
}

std::vector<int> LostCities::LegalActions(const State& s) const {
  std::vector<int> actions;
  ForEachBit(LegalMask(s), [&](int a) { actions.push_back(a); });
  return actions;
}

Card LostCities::ActionCard(const State& s, int action) const {
  const Move move = DecodeAction(action);
  if (move.is_card()) return s.hand[s.player][move.index];
  if (move.kind == Move::Kind::kDrawDeck) return kNoCard;
  const int c = move.index;
  return MakeCard(c, s.pile[c][s.pile_size[c] - 1]);
}

int LostCities::ColorScore(uint32_t exp, int sum) const {
  if (exp == 0) return 0;
  const int wagers = std::popcount(exp & wager_mask_);
  const int cards = std::popcount(exp);
  return (sum - rules_.expedition_cost) * (1 + wagers) +
         (cards >= rules_.bonus_threshold ? rules_.bonus : 0);
}

void LostCities::RecomputeScore(State& s, int player, int color, int old_color_score) const {
  s.score[player] += ColorScore(s, player, color) - old_color_score;
}

void LostCities::InsertIntoHand(State& s, int player, Card card) const {
  auto& hand = s.hand[player];
  int j = s.hand_count[player];
  while (j > 0 && hand[j - 1] > card) {
    hand[j] = hand[j - 1];
    --j;
  }
  hand[j] = card;
  ++s.hand_count[player];
}

UndoRecord LostCities::ApplyUnchecked(State& s, int action) const {
  LCFR_DCHECK((LegalMask(s) >> action) & 1) << "illegal action " << action;
  const int p = s.player;
  const Move move = DecodeAction(action);
  UndoRecord undo{kNoCard, s.last_discard, 0};
  ++s.decisions;
  if (s.phase == Phase::kCard) {
    auto& hand = s.hand[p];
    const int slot = move.index;
    const Card card = hand[slot];
    const int count = s.hand_count[p];
    for (int j = slot; j + 1 < count; ++j) hand[j] = hand[j + 1];
    hand[count - 1] = kNoCard;
    s.hand_count[p] = static_cast<uint8_t>(count - 1);

    const int c = CardColor(card);
    const int i = CardIndex(card);
    const auto bit = static_cast<uint16_t>(1u << i);
    undo.card = card;
    undo.was_known = (s.known[p][c] & bit) != 0;
    s.known[p][c] &= static_cast<uint16_t>(~bit);
    if (move.kind == Move::Kind::kPlay) {
      const int old = ColorScore(s, p, c);
      s.expedition[p][c] |= bit;
      s.expedition_sum[p][c] = static_cast<int16_t>(s.expedition_sum[p][c] + value_of_index_[i]);
      RecomputeScore(s, p, c, old);
    } else {
      s.pile[c][s.pile_size[c]++] = static_cast<uint8_t>(i);
      s.last_discard = static_cast<int8_t>(c);
    }
    s.phase = Phase::kDraw;
    if (s.decisions >= rules_.max_decisions) {
      s.end = EndReason::kDecisionCap;
    } else if (s.deck_size == 0 && LegalMask(s) == 0) {  // the deck draw is legal otherwise
      s.end = EndReason::kNoLegalDraw;
    }
    return undo;
  }

  Card card;
  if (move.kind == Move::Kind::kDrawDeck) {
    card = s.deck[--s.deck_size];
  } else {
    const int c = move.index;
    const int i = s.pile[c][--s.pile_size[c]];
    s.pile[c][s.pile_size[c]] = kNoCard;
    card = MakeCard(c, i);
    const auto bit = static_cast<uint16_t>(1u << i);
    undo.was_known = (s.known[p][c] & bit) != 0;
    s.known[p][c] |= bit;
  }
  undo.card = card;
  InsertIntoHand(s, p, card);
  s.last_discard = -1;
  s.phase = Phase::kCard;
  s.player = static_cast<uint8_t>(1 - p);
  if (s.deck_size == 0) {
    s.end = EndReason::kDeckEmpty;
  } else if (s.decisions >= rules_.max_decisions) {
    s.end = EndReason::kDecisionCap;
  }
  return undo;
}

void LostCities::Undo(State& s, int action, const UndoRecord& undo) const {
  const Move move = DecodeAction(action);
  s.end = EndReason::kNotOver;
  --s.decisions;
  s.last_discard = undo.last_discard;
  const Card card = undo.card;
  const int c = CardColor(card);
  const int i = CardIndex(card);
  const auto bit = static_cast<uint16_t>(1u << i);
  if (s.phase == Phase::kCard) {
    // Undo a draw by the previous player.
    const int p = 1 - s.player;
    s.player = static_cast<uint8_t>(p);
    s.phase = Phase::kDraw;
    auto& hand = s.hand[p];
    const int count = s.hand_count[p];
    int j = 0;
    while (hand[j] != card) ++j;
    for (; j + 1 < count; ++j) hand[j] = hand[j + 1];
    hand[count - 1] = kNoCard;
    s.hand_count[p] = static_cast<uint8_t>(count - 1);
    if (move.kind == Move::Kind::kDrawDeck) {
      ++s.deck_size;
    } else {
      s.pile[c][s.pile_size[c]++] = static_cast<uint8_t>(i);
      if (!undo.was_known) s.known[p][c] &= static_cast<uint16_t>(~bit);
    }
    return;
  }
  // Undo a card decision.
  const int p = s.player;
  s.phase = Phase::kCard;
  if (move.kind == Move::Kind::kPlay) {
    const int old = ColorScore(s, p, c);
    s.expedition[p][c] &= static_cast<uint16_t>(~bit);
    s.expedition_sum[p][c] = static_cast<int16_t>(s.expedition_sum[p][c] - value_of_index_[i]);
    RecomputeScore(s, p, c, old);
  } else {
    s.pile[c][--s.pile_size[c]] = kNoCard;
  }
  InsertIntoHand(s, p, card);
  if (undo.was_known) s.known[p][c] |= bit;
}

std::string LostCities::ActionName(const State& s, int action) const {
  if (action < 0 || action >= num_actions_) return StrCat("action ", action);
  const Move move = DecodeAction(action);
  if (move.is_card()) {
    const int slot = move.index;
    const std::string verb = move.kind == Move::Kind::kDiscard ? "discard" : "play";
    if (slot >= s.hand_count[s.player]) return StrCat(verb, " slot ", slot);
    return StrCat(verb, " ", CardName(rules_, s.hand[s.player][slot]));
  }
  if (move.kind == Move::Kind::kDrawDeck) return "draw deck";
  return StrCat("draw ", std::string(1, kColorLetters[move.index]));
}

absl::Status LostCities::ApplyChecked(State& s, int action) const {
  if (IsTerminal(s)) {
    return absl::FailedPreconditionError(
        StrCat("the game is over (", EndReasonName(s.end), "); no action is legal"));
  }
  if (action < 0 || action >= num_actions_) {
    return absl::InvalidArgumentError(
        StrCat("action ", action, " is out of range [0, ", num_actions_, ")"));
  }
  const int p = s.player;
  const Move move = DecodeAction(action);
  if (!((LegalMask(s) >> action) & 1)) {
    std::string why;
    if (s.phase == Phase::kCard) {
      if (!move.is_card()) {
        why = "this is a card decision (play or discard), not a draw";
      } else if (move.index >= s.hand_count[p]) {
        why = StrCat("hand slot ", move.index, " is empty (hand has ", int{s.hand_count[p]},
                     " cards)");
      } else {
        const Card card = s.hand[p][move.index];
        const uint32_t exp = s.expedition[p][CardColor(card)];
        const int top = HighestBit(exp);
        why = IsWager(rules_, card) ? StrCat("cannot play wager ", CardName(rules_, card),
                                             ": the expedition already holds a numbered card")
                                    : StrCat("cannot play ", CardName(rules_, card),
                                             ": the expedition's highest card is ",
                                             CardName(rules_, MakeCard(CardColor(card), top)));
      }
    } else if (move.is_card()) {
      why = "this is a draw decision, not a play or discard";
    } else {
      const int c = move.index;
      if (c == s.last_discard) {
        why = StrCat("cannot draw back from pile ", std::string(1, kColorLetters[c]),
                     ": it was discarded to this turn");
      } else {
        why = StrCat("discard pile ", std::string(1, kColorLetters[c]), " is empty");
      }
    }
    return absl::InvalidArgumentError(
        StrCat("illegal action ", action, " (", ActionName(s, action), "): ", why));
  }
  ApplyUnchecked(s, action);
  return absl::OkStatus();
}

namespace {

// kByteToFloats[b][i] = bit i of b, as 0.0f / 1.0f: expands a card mask into a plane row with
// two 32-byte copies instead of a data-dependent loop.
constexpr auto MakeByteTable() {
  std::array<std::array<float, 8>, 256> table{};
  for (int b = 0; b < 256; ++b) {
    for (int i = 0; i < 8; ++i) table[b][i] = static_cast<float>((b >> i) & 1);
  }
  return table;
}
alignas(64) constexpr std::array<std::array<float, 8>, 256> kByteToFloats = MakeByteTable();

// Writes bits 0..15 of mask as 16 floats at out (the caller owns 16 floats there).
inline void WriteMask16(uint32_t mask, float* out) {
  std::memcpy(out, kByteToFloats[mask & 0xFF].data(), 8 * sizeof(float));
  std::memcpy(out + 8, kByteToFloats[(mask >> 8) & 0xFF].data(), 8 * sizeof(float));
}

}  // namespace

void LostCities::Encode(const View& v, std::span<float> out) const {
  LCFR_DCHECK_EQ(static_cast<int>(out.size()), encoding_size_);
  const int colors = rules_.colors;
  const int k = rules_.cards_per_color();
  const int h = rules_.hand_size;
  const int plane = colors * k;
  float* const o = out.data();

  std::array<uint32_t, kMaxColors> my_hand{};
  for (int j = 0; j < v.hand_count; ++j) {
    const Card card = v.hand[j];
    my_hand[CardColor(card)] |= 1u << CardIndex(card);
  }
  // masks[plane][color]; wagers of a color are interchangeable, so each plane encodes how many
  // it holds (the lowest wager indices set), never which wager ids: equal information states
  // encode equally.
  std::array<std::array<uint32_t, kMaxColors>, kCardPlanes> masks;
  std::array<uint32_t, kMaxColors> playable{};
  std::array<int, kMaxColors> pile_top{};
  std::array<uint32_t, kMaxColors> unseen{};
  const uint32_t wagers = wager_mask_;
  auto canon = [wagers](uint32_t m) {
    return (m & ~wagers) | ((1u << std::popcount(m & wagers)) - 1);
  };
  for (int c = 0; c < colors; ++c) {
    const uint32_t my_exp = v.expedition[0][c];
    const uint32_t opp_exp = v.expedition[1][c];
    const uint32_t piled = v.piled[c];
    const uint32_t opp_known = v.opponent_known[c];
    unseen[c] = color_mask_ & ~(my_hand[c] | my_exp | opp_exp | piled | opp_known);
    pile_top[c] = v.pile_top[c] == kNoCard ? -1 : v.pile_top[c];
    masks[0][c] = canon(my_hand[c]);
    masks[1][c] = canon(my_exp);
    masks[2][c] = canon(opp_exp);
    masks[3][c] = canon(piled);
    masks[4][c] = pile_top[c] < 0 ? 0u : 1u << (pile_top[c] < rules_.wagers ? 0 : pile_top[c]);
    masks[5][c] = canon(opp_known);
    masks[6][c] = canon(unseen[c]);
    // A card of index i is playable iff (expedition >> max(i, wagers)) == 0.
    const int top = HighestBit(my_exp);
    playable[c] = top >= rules_.wagers ? color_mask_ & ~((2u << top) - 1) : color_mask_;
  }
  // Rows are written in increasing address order, each as 16 floats: the bits past k spill
  // into the next row, which overwrites them; the last row's spill lands in the per-color
  // features (>= 15 floats), written below.
  for (int p = 0; p < kCardPlanes; ++p) {
    for (int c = 0; c < colors; ++c) WriteMask16(masks[p][c], o + p * plane + c * k);
  }
  float* const features = o + kCardPlanes * plane;
  std::fill(features, o + encoding_size_, 0.0f);

  std::array<int, 2> score{};
  for (int c = 0; c < colors; ++c) {
    float* f = features + c * kColorFeatures;
    for (int side = 0; side < 2; ++side) {
      const uint32_t exp = v.expedition[side][c];
      const int last = HighestBit(exp);
      float* g = f + 5 * side;
      g[0] = static_cast<float>(v.expedition_sum[side][c]) * inv_max_color_sum_;
      g[1] = static_cast<float>(std::popcount(exp)) * inv_cards_per_color_;
      g[2] = static_cast<float>(std::popcount(exp & wager_mask_)) * inv_wagers_;
      g[3] =
          last >= rules_.wagers ? static_cast<float>(last - rules_.wagers + 1) * inv_ranks_ : 0.0f;
      const int color_score = ColorScore(exp, v.expedition_sum[side][c]);
      score[side] += color_score;
      g[4] = static_cast<float>(color_score) * (1.0f / kScoreScale);
    }
    f[10] = static_cast<float>(std::popcount(my_hand[c] & playable[c])) * inv_hand_size_;
    f[11] = pile_top[c] >= 0 && ((playable[c] >> pile_top[c]) & 1) ? 1.0f : 0.0f;
    f[12] = static_cast<float>(std::popcount(v.piled[c])) * inv_cards_per_color_;
    f[13] = static_cast<float>(std::popcount(unseen[c])) * inv_cards_per_color_;
    f[14] = c == v.last_discard ? 1.0f : 0.0f;
  }

  float* slots = features + kColorFeatures * colors;
  const int slot_width = colors + kSlotFeatures;
  for (int j = 0; j < v.hand_count; ++j) {
    const Card card = v.hand[j];
    const int c = CardColor(card);
    const int i = CardIndex(card);
    const bool can_play = (playable[c] >> i) & 1;
    const uint32_t my_exp = v.expedition[0][c];
    const uint32_t opp_exp = v.expedition[1][c];
    float* f = slots + j * slot_width;
    f[c] = 1.0f;
    f[colors] = i < rules_.wagers ? 1.0f : 0.0f;
    f[colors + 1] = static_cast<float>(value_of_index_[i]) * inv_max_value_;
    f[colors + 2] = can_play ? 1.0f : 0.0f;
    f[colors + 3] = 1.0f;
    f[colors + 4] = can_play && my_exp == 0 ? 1.0f : 0.0f;
    if (can_play) {
      const uint32_t after = my_exp | (1u << i);
      const int after_score =
          (v.expedition_sum[0][c] + value_of_index_[i] - rules_.expedition_cost) *
              (1 + std::popcount(after & wager_mask_)) +
          (std::popcount(after) >= rules_.bonus_threshold ? rules_.bonus : 0);
      f[colors + 5] = static_cast<float>(after_score - ColorScore(my_exp, v.expedition_sum[0][c])) *
                      (1.0f / kScoreScale);
    }
    const bool opp_can_play = opp_exp != 0 && (opp_exp >> std::max(i, rules_.wagers)) == 0;
    f[colors + 6] = opp_can_play ? 1.0f : 0.0f;
  }

  float* g = slots + h * slot_width;
  g[0] = static_cast<float>(v.deck_size) * inv_initial_deck_;
  g[1] = v.phase == Phase::kCard ? 1.0f : 0.0f;
  g[2] = v.phase == Phase::kDraw ? 1.0f : 0.0f;
  // The scores are the sums of the color scores (State::score caches the same sums).
  g[3] = static_cast<float>(score[0] - score[1]) * (1.0f / kScoreScale);
  g[4] = static_cast<float>(v.decisions) * inv_max_decisions_;

  float* legal = g + kGlobalFeatures;
  ForEachBit(LegalMask(v), [&](int a) { legal[a] = 1.0f; });
}

std::vector<Card> LostCities::HiddenFromMover(const State& s) const {
  const int opp = 1 - s.player;
  std::vector<Card> hidden;
  for (int j = 0; j < s.hand_count[opp]; ++j) {
    const Card card = s.hand[opp][j];
    if (!((s.known[opp][CardColor(card)] >> CardIndex(card)) & 1)) hidden.push_back(card);
  }
  hidden.insert(hidden.end(), s.deck.begin(), s.deck.begin() + s.deck_size);
  return hidden;
}

void LostCities::RefreshCaches(State& s) const {
  for (int p = 0; p < 2; ++p) {
    s.score[p] = 0;
    for (int c = 0; c < kMaxColors; ++c) {
      int sum = 0;
      for (uint32_t m = s.expedition[p][c]; m; m &= m - 1)
        sum += value_of_index_[std::countr_zero(m)];
      s.expedition_sum[p][c] = static_cast<int16_t>(sum);
      if (c < rules_.colors) s.score[p] += ColorScore(s, p, c);
    }
  }
}

absl::Status LostCities::CheckInvariants(const State& s) const {
  auto fail = [](auto&&... parts) { return absl::InternalError(StrCat(parts...)); };
  const int h = rules_.hand_size;
  const int colors = rules_.colors;
  std::array<int, kMaxDeckSize> seen{};
  auto count = [&](Card card, const char* where) -> absl::Status {
    if (card == kNoCard || CardColor(card) >= colors ||
        CardIndex(card) >= rules_.cards_per_color()) {
      return fail("invalid card id ", int{card}, " in ", where);
    }
    if (++seen[card] > 1) return fail("card ", CardName(rules_, card), " twice (", where, ")");
    return absl::OkStatus();
  };
  for (int p = 0; p < 2; ++p) {
    const int expected = (s.phase == Phase::kDraw && p == s.player) ? h - 1 : h;
    if (s.hand_count[p] != expected) {
      return fail("player ", p, " holds ", int{s.hand_count[p]}, " cards, expected ", expected);
    }
    for (int j = 0; j < kMaxHandSize; ++j) {
      const Card card = s.hand[p][j];
      if (j >= s.hand_count[p]) {
        if (card != kNoCard) return fail("hand ", p, " slot ", j, " past the hand is not empty");
        continue;
      }
      if (absl::Status st = count(card, "hand"); !st.ok()) return st;
      if (j > 0 && s.hand[p][j - 1] >= card) return fail("hand ", p, " is not sorted");
    }
    int total = 0;
    for (int c = 0; c < kMaxColors; ++c) {
      const uint32_t exp = s.expedition[p][c];
      if (c >= colors && (exp | s.known[p][c]) != 0) return fail("color ", c, " out of range");
      int sum = 0;
      for (int i = 0; i < kMaxCardsPerColor; ++i) {
        if (!((exp >> i) & 1)) continue;
        if (absl::Status st = count(MakeCard(c, i), "expedition"); !st.ok()) return st;
        sum += value_of_index_[i];
      }
      if (sum != s.expedition_sum[p][c]) {
        return fail("cached expedition sum ", s.expedition_sum[p][c], " != ", sum);
      }
      if (c < colors) total += ColorScore(s, p, c);
      for (int i = 0; i < kMaxCardsPerColor; ++i) {
        if (!((s.known[p][c] >> i) & 1)) continue;
        if (!std::binary_search(s.hand[p].begin(), s.hand[p].begin() + s.hand_count[p],
                                MakeCard(c, i))) {
          return fail("known card ", CardName(rules_, MakeCard(c, i)), " not in hand ", p);
        }
      }
    }
    if (total != s.score[p]) return fail("cached score ", s.score[p], " != ", total);
  }
  for (int c = 0; c < kMaxColors; ++c) {
    for (int j = 0; j < kMaxCardsPerColor; ++j) {
      const uint8_t index = s.pile[c][j];
      if (j >= s.pile_size[c]) {
        if (index != kNoCard) return fail("pile ", c, " entry past its size is not empty");
        continue;
      }
      if (absl::Status st = count(MakeCard(c, index), "discard pile"); !st.ok()) return st;
    }
  }
  for (int j = 0; j < s.deck_size; ++j) {
    if (absl::Status st = count(s.deck[j], "deck"); !st.ok()) return st;
  }
  for (Card card : SortedDeck()) {
    if (seen[card] != 1) return fail("card ", CardName(rules_, card), " is missing");
  }
  if (s.phase == Phase::kCard && s.last_discard != -1) {
    return fail("last_discard set during a card decision");
  }
  if (s.decisions > rules_.max_decisions) return fail("decisions exceed the cap");
  if (!IsTerminal(s) && s.deck_size == 0) return fail("deck empty but game not over");
  return absl::OkStatus();
}

}  // namespace lcfr::engine
