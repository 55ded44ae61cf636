// The engine conformance suite: seeded random playouts checking every invariant at every
// state (style.md: "an engine conformance suite").
#include <algorithm>
#include <array>
#include <bit>
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "engine/lost_cities.h"
#include "tests/engine/test_util.h"

// Checks inside the playout loops fail through CONFORM, which costs nothing while they hold:
// a REQUIRE per check would cost more than the engine work being checked.
#define CONFORM(cond)                                                     \
  do {                                                                    \
    if (!(cond)) FAIL("violated: " #cond " at decision " << s.decisions); \
  } while (false)

namespace lcfr::engine {
namespace {

// Legality straight from rules.md, independent of the engine's bit tricks.
ActionMask ReferenceMask(const LostCities& game, const State& s) {
  if (LostCities::IsTerminal(s)) return 0;
  const Rules& rules = game.rules();
  const int p = s.player;
  ActionMask mask = 0;
  if (s.phase == Phase::kCard) {
    for (int k = 0; k < s.hand_count[p]; ++k) {
      const Card card = s.hand[p][k];
      const int c = CardColor(card);
      int highest_numbered = -1;
      for (int i = 0; i < rules.cards_per_color(); ++i) {
        if (((s.expedition[p][c] >> i) & 1) && i >= rules.wagers) {
          highest_numbered = std::max(highest_numbered, CardValue(rules, MakeCard(c, i)));
        }
      }
      const bool playable =
          IsWager(rules, card) ? highest_numbered < 0 : CardValue(rules, card) > highest_numbered;
      if (playable) mask |= 1u << (2 * k);
      mask |= 1u << (2 * k + 1);
    }
  } else {
    if (s.deck_size > 0) mask |= 1u << game.deck_action();
    for (int c = 0; c < rules.colors; ++c) {
      if (s.pile_size[c] > 0 && c != s.last_discard) mask |= 1u << game.pile_action(c);
    }
  }
  return mask;
}

struct Totals {
  long states = 0;
  long games = 0;
  long capped = 0;
  long deck_empty = 0;
};

// Plays one uniformly random game from `s`, checking everything at every state.
void CheckedPlayout(const LostCities& game, State s, Rng& rng, Totals& totals) {
  const Rules& rules = game.rules();
  std::vector<float> enc(game.EncodingSize());
  std::vector<float> enc_twin(game.EncodingSize());
  for (;;) {
    ++totals.states;
    const absl::Status inv = game.CheckInvariants(s);
    if (!inv.ok()) FAIL("invariant: " << inv.message() << " at decision " << s.decisions);
    const ActionMask mask = game.LegalMask(s);
    CONFORM(mask == ReferenceMask(game, s));
    const std::vector<int> list = game.LegalActions(s);
    CONFORM(static_cast<int>(list.size()) == std::popcount(mask));
    for (int a : list) CONFORM(((mask >> a) & 1) == 1);
    CONFORM(LostCities::IsTerminal(s) == (mask == 0));
    CONFORM(std::is_sorted(list.begin(), list.end()));

    // The encoding reads no hidden information, and the mask rides along in it.
    game.Encode(s, enc);
    const State twin = testing::ResampleHidden(game, s, rng);
    CONFORM(game.CheckInvariants(twin).ok());
    game.Encode(twin, enc_twin);
    CONFORM(enc == enc_twin);
    CONFORM(game.LegalMask(twin) == mask);
    // The mover's view: equal bytes for equal information, the same legal actions, and the
    // scores the state caches.
    const View view = game.MoverView(s);
    const View twin_view = game.MoverView(twin);
    CONFORM(std::memcmp(&view, &twin_view, sizeof(View)) == 0);
    CONFORM(game.LegalMask(view) == mask);
    CONFORM(view.player == s.player);
    const float* legal = enc.data() + game.EncodingSize() - game.num_actions();
    for (int a = 0; a < game.num_actions(); ++a) CONFORM((legal[a] == 1.0f) == ((mask >> a) & 1));

    if (mask == 0) break;

    // Every legal action undoes exactly.
    for (int a : list) {
      State copy = s;
      const UndoRecord undo = game.ApplyUnchecked(copy, a);
      game.Undo(copy, a, undo);
      CONFORM(copy == s);
    }
    // Illegal actions are refused by the checked apply and leave the state alone (on every
    // 8th state: building the error messages is the slowest part of the suite).
    for (int a = 0; a < game.num_actions() && s.decisions % 8 == 0; ++a) {
      if ((mask >> a) & 1) continue;
      State copy = s;
      CONFORM(!game.ApplyChecked(copy, a).ok());
      CONFORM(copy == s);
    }

    const int action = list[rng.Uniform(static_cast<uint32_t>(list.size()))];
    const int p = s.player;
    const Move move = game.DecodeAction(action);
    CONFORM(move.is_card() == (s.phase == Phase::kCard));
    if (move.kind == Move::Kind::kPlay) {
      // Ascending expeditions and the wager rule, checked on the move itself.
      const Card card = s.hand[p][move.index];
      const int c = CardColor(card);
      const uint32_t numbered = s.expedition[p][c] & ~((1u << rules.wagers) - 1);
      if (IsWager(rules, card)) {
        CONFORM(numbered == 0);
      } else {
        CONFORM((numbered >> CardIndex(card)) == 0);
      }
    }
    const int deck_before = s.deck_size;
    const int decisions_before = s.decisions;
    game.ApplyUnchecked(s, action);
    CONFORM(s.decisions == decisions_before + 1);
    if (action == game.deck_action()) CONFORM(s.deck_size == deck_before - 1);
  }
  ++totals.games;
  CONFORM(s.decisions <= rules.max_decisions);
  if (s.end == EndReason::kDecisionCap) {
    ++totals.capped;
    CONFORM(s.decisions == rules.max_decisions);
  }
  if (s.end == EndReason::kDeckEmpty) {
    ++totals.deck_empty;
    CONFORM(s.deck_size == 0);
  }
}

TEST_CASE("conformance: 8,000 random classic games, every state checked", "[conformance]") {
  const LostCities game;
  Totals totals;
  for (uint64_t g = 0; g < 8000; ++g) {
    Rng rng(DeriveSeed({0xC0FFEE, g}));
    CheckedPlayout(game, game.Deal(rng), rng, totals);
  }
  CHECK(totals.games == 8000);
  CHECK(totals.deck_empty + totals.capped == totals.games);
  WARN("classic: " << totals.states << " states, " << totals.capped << " games capped");
}

TEST_CASE("conformance: 2,000 random games on random rule variants", "[conformance]") {
  Totals totals;
  for (uint64_t g = 0; g < 2000; ++g) {
    Rng rng(DeriveSeed({0xBEEF, g}));
    const Rules rules = testing::RandomRules(rng);
    const LostCities game(rules);
    INFO("rules: " << ToString(rules));
    CheckedPlayout(game, game.Deal(rng), rng, totals);
  }
  CHECK(totals.games == 2000);
  CHECK(totals.deck_empty + totals.capped == totals.games);
  WARN("variants: " << totals.states << " states, " << totals.capped << " games capped");
}

TEST_CASE("conformance: the decision cap ends a game and is reported", "[conformance]") {
  Rules rules;
  rules.max_decisions = 7;  // ends in the middle of a turn: after a card decision
  const LostCities game(rules);
  State s = game.DealFromSeed(5);
  while (!LostCities::IsTerminal(s)) game.ApplyUnchecked(s, game.LegalActions(s).front());
  CHECK(s.end == EndReason::kDecisionCap);
  CHECK(s.decisions == 7);
  CHECK(s.phase == Phase::kDraw);
  CHECK(game.LegalMask(s) == 0);
  CHECK(game.CheckInvariants(s).ok());
}

TEST_CASE("conformance: discarding forbids drawing that pile back this turn", "[conformance]") {
  const LostCities game;
  State s = game.DealFromSeed(9);
  const Card card = s.hand[0][0];
  game.ApplyUnchecked(s, 1);  // discard slot 0
  const int c = CardColor(card);
  CHECK(s.last_discard == c);
  CHECK_FALSE((game.LegalMask(s) >> game.pile_action(c)) & 1);
  const absl::Status st = game.ApplyChecked(s, game.pile_action(c));
  REQUIRE_FALSE(st.ok());
  CHECK(std::string(st.message()).find("discarded to this turn") != std::string::npos);
  game.ApplyUnchecked(s, game.deck_action());
  // Player 1 may take it.
  CHECK((game.LegalMask(s) >> 1) & 1);
  game.ApplyUnchecked(s, 1);
  CHECK((((game.LegalMask(s) >> game.pile_action(c)) & 1) == 1 || s.last_discard == c));
}

TEST_CASE("conformance: reshuffling the deck keeps its cards and both players' views",
          "[conformance]") {
  const LostCities game;
  Rng rng(5);
  std::array<int, 2> top_counts{};  // how often the old top stays on top, and moves
  for (int g = 0; g < 200; ++g) {
    State s = game.DealFromSeed(100 + g);
    const int steps = static_cast<int>(rng.Uniform(60));
    for (int k = 0; k < steps && !LostCities::IsTerminal(s); ++k) {
      const std::vector<int> legal = game.LegalActions(s);
      game.ApplyUnchecked(s, legal[rng.Uniform(static_cast<uint32_t>(legal.size()))]);
    }
    if (LostCities::IsTerminal(s) || s.deck_size < 2) continue;
    State t = s;
    LostCities::ShuffleRemainingDeck(t, rng);
    std::vector<Card> before(s.deck.begin(), s.deck.begin() + s.deck_size);
    std::vector<Card> after(t.deck.begin(), t.deck.begin() + t.deck_size);
    ++top_counts[before.back() == after.back() ? 0 : 1];
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    CHECK(before == after);
    // The drawn cards kept past deck_size (for undo) are untouched.
    CHECK(std::equal(s.deck.begin() + s.deck_size, s.deck.end(), t.deck.begin() + t.deck_size));
    for (int p = 0; p < 2; ++p) {
      State sp = s, tp = t;
      sp.player = tp.player = static_cast<uint8_t>(p);
      View a, b;
      game.MoverView(sp, a);
      game.MoverView(tp, b);
      CHECK(a == b);
    }
    CHECK(game.LegalMask(s) == game.LegalMask(t));
  }
  // A uniform reorder moves the top card almost always (it stays with probability 1/deck_size).
  CHECK(top_counts[1] > 4 * top_counts[0]);
}

TEST_CASE("Move: every action id decodes to one move and encodes back", "[conformance]") {
  for (int h = 1; h <= kMaxHandSize; ++h) {
    for (int colors = 1; colors <= kMaxColors; ++colors) {
      const int actions = 2 * h + 1 + colors;
      int plays = 0, discards = 0, decks = 0, piles = 0;
      for (int a = 0; a < actions; ++a) {
        const Move m = Move::Decode(a, h);
        CHECK(m.Encode(h) == a);
        switch (m.kind) {
          case Move::Kind::kPlay:
            ++plays;
            CHECK(m.index < h);
            break;
          case Move::Kind::kDiscard:
            ++discards;
            CHECK(m.index < h);
            break;
          case Move::Kind::kDrawDeck:
            ++decks;
            break;
          case Move::Kind::kDrawPile:
            ++piles;
            CHECK(m.index < colors);
            break;
        }
      }
      CHECK(plays == h);
      CHECK(discards == h);
      CHECK(decks == 1);
      CHECK(piles == colors);
    }
  }
  const LostCities game;
  CHECK(game.EncodeMove(Move::DrawDeck()) == 16);
  CHECK(game.EncodeMove(Move::DrawPile(4)) == 21);
  CHECK(game.DecodeAction(7) == Move::Discard(3));
}

}  // namespace
}  // namespace lcfr::engine
