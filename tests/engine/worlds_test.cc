// engine/worlds.h: sampled worlds keep everything the player to move knows, do not depend on
// where the hidden cards really are, and deal those cards uniformly (a chi-square test); worlds
// with a past rebuild a game that looks the same to the mover, drawn uniformly from all such
// games (against an exact enumeration on a small deck).
#include "engine/worlds.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "base/rng.h"
#include "engine/lost_cities.h"

namespace lcfr::engine {
namespace {

// A legal action of `s` drawn uniformly (as play's RandomBot draws it).
int RandomAction(const LostCities& game, const State& s, Rng& rng) {
  const std::vector<int> legal = game.LegalActions(s);
  return legal[rng.Uniform(static_cast<uint32_t>(legal.size()))];
}

// A state after `decisions` decisions of random play from deal `seed` (or earlier if the game
// ends first: the last non-terminal state).
State RandomPlayState(const LostCities& game, uint64_t seed, int decisions) {
  Rng rng(seed);
  State s = game.Deal(rng);
  for (int k = 0; k < decisions; ++k) {
    State next = s;
    game.ApplyUnchecked(next, RandomAction(game, next, rng));
    if (LostCities::IsTerminal(next)) break;
    s = next;
  }
  return s;
}

std::vector<Card> Sorted(std::vector<Card> cards) {
  std::sort(cards.begin(), cards.end());
  return cards;
}

int KnownCount(const State& s, int player) {
  int n = 0;
  for (const uint16_t m : s.known[player]) n += std::popcount(m);
  return n;
}

TEST_CASE("SampleWorld keeps what the mover knows", "[worlds]") {
  const LostCities game;
  int with_known = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const State s = RandomPlayState(game, seed, static_cast<int>(seed * 7 % 150));
    Rng rng(seed * 101);
    for (int k = 0; k < 5; ++k) {
      const State w = SampleWorld(game, s, rng);
      INFO("seed " << seed << ", world " << k);
      REQUIRE(game.CheckInvariants(w).ok());
      CHECK(game.MoverView(w) == game.MoverView(s));
      CHECK(game.LegalMask(w) == game.LegalMask(s));
      CHECK(w.pile == s.pile);  // in order, below the tops too
      CHECK(w.pile_size == s.pile_size);
      CHECK(w.expedition == s.expedition);
      CHECK(w.known == s.known);
      CHECK(w.hand[s.player] == s.hand[s.player]);
      CHECK(w.hand_count == s.hand_count);
      CHECK(w.deck_size == s.deck_size);
      CHECK(w.score == s.score);
      CHECK(w.decisions == s.decisions);
      CHECK(w.phase == s.phase);
      CHECK(w.last_discard == s.last_discard);
      // The opponent still holds its known cards; the hidden cards are the same cards.
      const int opp = 1 - s.player;
      for (int c = 0; c < game.rules().colors; ++c) {
        for (uint32_t m = s.known[opp][c]; m; m &= m - 1) {
          const Card card = MakeCard(c, std::countr_zero(m));
          CHECK(std::find(w.hand[opp].begin(), w.hand[opp].begin() + w.hand_count[opp], card) !=
                w.hand[opp].begin() + w.hand_count[opp]);
        }
      }
      CHECK(Sorted(game.HiddenFromMover(w)) == Sorted(game.HiddenFromMover(s)));
      CHECK(OpponentUnknownCards(w) == OpponentUnknownCards(s));
    }
    with_known += KnownCount(s, 1 - s.player) > 0;
  }
  CHECK(with_known >= 5);  // the opponent's known cards were exercised
}

TEST_CASE("SampleWorld reads nothing hidden", "[worlds]") {
  const LostCities game;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const State s = RandomPlayState(game, seed, static_cast<int>(seed * 11 % 140));
    Rng other(seed + 1000);
    const State t = SampleWorld(game, s, other);  // the same knowledge, other hidden cards
    Rng a(seed), b(seed);
    CHECK(SampleWorld(game, s, a) == SampleWorld(game, t, b));
  }
}

// Pearson's chi-square of where each hidden card lands (one of the deck positions, or the
// opponent's unknown slots taken together) over `n` worlds of `s`, against the uniform deal;
// with its degrees of freedom. `world(rng)` samples one world.
template <typename Sample>
std::pair<double, int> LocationChiSquare(const LostCities& game, const State& s, int n,
                                         Sample world) {
  const std::vector<Card> hidden = SortedHiddenCards(game, s);
  const int cards = static_cast<int>(hidden.size());
  const int deck = s.deck_size;
  const int unknown = OpponentUnknownCards(s);
  std::map<Card, int> row;
  for (int i = 0; i < cards; ++i) row[hidden[i]] = i;
  // counts[card][location]: location 0..deck-1 a deck position, deck = the opponent's hand.
  std::vector<std::vector<double>> counts(cards, std::vector<double>(deck + 1, 0.0));
  Rng rng(99);
  const int opp = 1 - s.player;
  for (int k = 0; k < n; ++k) {
    const State w = world(rng);
    for (int j = 0; j < deck; ++j) counts[row.at(w.deck[j])][j] += 1;
    for (int j = 0; j < w.hand_count[opp]; ++j) {
      const Card card = w.hand[opp][j];
      if (!((w.known[opp][CardColor(card)] >> CardIndex(card)) & 1))
        counts[row.at(card)][deck] += 1;
    }
  }
  double chi2 = 0;
  for (int i = 0; i < cards; ++i) {
    for (int j = 0; j <= deck; ++j) {
      const double expected = static_cast<double>(n) * (j == deck ? unknown : 1) / cards;
      chi2 += (counts[i][j] - expected) * (counts[i][j] - expected) / expected;
    }
  }
  return {chi2, (cards - 1) * deck};
}

// The chi-square quantile at upper tail probability 1e-4 (z = 3.719), Wilson-Hilferty.
double Critical(int df) {
  const double a = 2.0 / (9.0 * df);
  return df * std::pow(1.0 - a + 3.719 * std::sqrt(a), 3.0);
}

TEST_CASE("SampleWorld deals the hidden cards uniformly (chi-square)", "[worlds]") {
  const LostCities game;
  // A middle-game state whose opponent holds known cards.
  State s;
  for (uint64_t seed = 1;; ++seed) {
    s = RandomPlayState(game, seed, 60);
    if (KnownCount(s, 1 - s.player) > 0 && s.deck_size >= 10) break;
  }
  const int n = 20000;
  const auto [chi2, df] =
      LocationChiSquare(game, s, n, [&](Rng& rng) { return SampleWorld(game, s, rng); });
  INFO("chi2 " << chi2 << " df " << df << " critical " << Critical(df));
  CHECK(chi2 < Critical(df));
  // The test can fail: a dealer that shuffles only the deck (the opponent keeps its hand) is
  // caught.
  const auto [biased, df2] = LocationChiSquare(game, s, n, [&](Rng& rng) {
    State w = s;
    LostCities::ShuffleRemainingDeck(w, rng);
    return w;
  });
  CHECK(biased > Critical(df2));
}

// A game of random play from deal `seed` up to (not past) decision `decisions` or the last
// non-terminal state, with every move as the player to move at the end saw it, and the deal.
struct SeenGame {
  State deal, now;
  std::vector<SeenMove> seen;
};
SeenGame RandomSeenGame(const LostCities& game, uint64_t seed, int decisions) {
  Rng rng(seed);
  SeenGame g;
  g.deal = game.Deal(rng);
  std::vector<std::pair<State, int>> moves;
  State s = g.deal;
  for (int k = 0; k < decisions; ++k) {
    const int a = RandomAction(game, s, rng);
    State next = s;
    game.ApplyUnchecked(next, a);
    if (LostCities::IsTerminal(next)) break;
    moves.emplace_back(s, a);
    s = next;
  }
  g.now = s;
  for (const auto& [before, a] : moves) g.seen.push_back(SeeMove(game, before, a, s.player));
  return g;
}

TEST_CASE("SeeMove hides only the other player's deck draws", "[worlds]") {
  const LostCities game;
  const State s = game.DealFromSeed(5);  // player 0 to make a card decision
  const SeenMove play = SeeMove(game, s, game.EncodeMove(Move::Play(0)), 1);
  CHECK(play.player == 0);
  CHECK(play.kind == Move::Kind::kPlay);
  CHECK(play.card == s.hand[0][0]);
  State t = s;
  game.ApplyUnchecked(t, game.EncodeMove(Move::Discard(2)));
  CHECK(SeeMove(game, t, game.deck_action(), 0).card == t.deck[t.deck_size - 1]);
  CHECK(SeeMove(game, t, game.deck_action(), 1).card == kNoCard);
  const int color = CardColor(s.hand[0][2]);
  const SeenMove pile = SeeMove(game, t, game.pile_action(color), 1);
  CHECK(pile.kind == Move::Kind::kDrawPile);
  CHECK(pile.card == s.hand[0][2]);
}

TEST_CASE("SampleWorldHistory rebuilds a game that looks the same to the mover", "[worlds]") {
  const LostCities game;
  int pile_draws = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    const SeenGame g = RandomSeenGame(game, seed, static_cast<int>(seed * 11 % 160));
    const State& s = g.now;
    const int me = s.player;
    for (const SeenMove& m : g.seen) pile_draws += m.kind == Move::Kind::kDrawPile;
    Rng rng(seed * 7);
    for (int k = 0; k < 4; ++k) {
      INFO("seed " << seed << ", decisions " << int{s.decisions} << ", world " << k);
      absl::StatusOr<WorldHistory> w = SampleWorldHistory(game, s, g.seen, rng);
      REQUIRE(w.ok());
      REQUIRE(game.CheckInvariants(w->now).ok());
      CHECK(game.MoverView(w->now) == game.MoverView(s));
      CHECK(w->now.pile == s.pile);
      CHECK(w->now.known == s.known);
      CHECK(w->deal.hand[me] == g.deal.hand[me]);  // the mover's own deal
      // Replayed, the rebuilt game shows the mover the same moves, and ends where `now` is.
      REQUIRE(w->actions.size() == g.seen.size());
      State t = w->deal;
      for (size_t i = 0; i < w->actions.size(); ++i) {
        REQUIRE(((game.LegalMask(t) >> w->actions[i]) & 1) != 0);
        CHECK(SeeMove(game, t, w->actions[i], me) == g.seen[i]);
        game.ApplyUnchecked(t, w->actions[i]);
      }
      CHECK(game.MoverView(t) == game.MoverView(w->now));
      CHECK(t.hand == w->now.hand);
      CHECK(std::equal(t.deck.begin(), t.deck.begin() + t.deck_size, w->now.deck.begin()));
    }
  }
  CHECK(pile_draws > 0);  // the random games took cards from the piles
}

TEST_CASE("SampleWorldHistory reads nothing hidden and refuses a history that does not fit",
          "[worlds]") {
  const LostCities game;
  const SeenGame g = RandomSeenGame(game, 3, 70);
  // The same knowledge with the hidden cards elsewhere: the same worlds.
  Rng redeal(17);
  const State other = SampleWorld(game, g.now, redeal);
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Rng a(seed), b(seed);
    const auto wa = SampleWorldHistory(game, g.now, g.seen, a);
    const auto wb = SampleWorldHistory(game, other, g.seen, b);
    REQUIRE(wa.ok());
    REQUIRE(wb.ok());
    CHECK(wa->deal == wb->deal);
    CHECK(wa->actions == wb->actions);
  }
  Rng rng(1);
  std::vector<SeenMove> short_history(g.seen.begin(), g.seen.end() - 1);
  CHECK(!SampleWorldHistory(game, g.now, short_history, rng).ok());
  std::vector<SeenMove> wrong = g.seen;
  for (SeenMove& m : wrong) {
    if (m.kind == Move::Kind::kPlay) {
      m.card = m.card == 0 ? 1 : 0;  // another card than the one played
      break;
    }
  }
  CHECK(!SampleWorldHistory(game, g.now, wrong, rng).ok());
}

// The opponent's hidden past in a world with a past: its dealt hand (sorted) and its deck draws
// in order, as bytes (a map key).
std::string HiddenPast(const LostCities& game, const State& deal, const std::vector<int>& actions,
                       int opponent) {
  std::string past(deal.hand[opponent].begin(),
                   deal.hand[opponent].begin() + deal.hand_count[opponent]);
  State t = deal;
  for (const int a : actions) {
    if (t.player == opponent && a == game.deck_action()) {
      past.push_back(static_cast<char>(t.deck[t.deck_size - 1]));
    }
    game.ApplyUnchecked(t, a);
  }
  return past;
}

TEST_CASE("SampleWorldHistory draws the opponent's past uniformly (exact, small deck)",
          "[worlds]") {
  // Two colors of four ranks, hands of two: 8 cards, 8! deck orders to enumerate.
  Rules rules;
  rules.colors = 2;
  rules.ranks = 4;
  rules.wagers = 0;
  rules.hand_size = 2;
  const LostCities game(rules);
  int games_with_pile_draws = 0;
  for (uint64_t seed = 1; seed <= 200 && games_with_pile_draws < 2; ++seed) {
    const SeenGame g = RandomSeenGame(game, seed, 7);
    const State& s = g.now;
    const int me = s.player, opp = 1 - me;
    int opp_deck_draws = 0;
    bool opp_pile = false;
    for (const SeenMove& m : g.seen) {
      opp_deck_draws += m.player == opp && m.kind == Move::Kind::kDrawDeck;
      opp_pile = opp_pile || (m.player == opp && m.kind == Move::Kind::kDrawPile);
    }
    if (opp_deck_draws == 0 || (!opp_pile && seed > 3)) continue;
    games_with_pile_draws += opp_pile;
    INFO("seed " << seed << ", decisions " << int{s.decisions});
    // Exact: every deck order whose game, replayed card by card, shows the mover what it saw.
    std::map<std::string, double> exact;
    std::vector<Card> order = game.SortedDeck();
    double consistent = 0;
    do {
      State t = *game.DealFromDeck(order);
      if (t.hand[me] != g.deal.hand[me]) continue;
      std::string past(t.hand[opp].begin(), t.hand[opp].begin() + t.hand_count[opp]);
      bool fits = true;
      for (const SeenMove& m : g.seen) {
        int action = -1;
        if (m.kind == Move::Kind::kDrawDeck) {
          if (m.player == me && t.deck[t.deck_size - 1] != m.card) fits = false;
          if (m.player == opp) past.push_back(static_cast<char>(t.deck[t.deck_size - 1]));
          action = game.deck_action();
        } else if (m.kind == Move::Kind::kDrawPile) {
          action = game.pile_action(CardColor(m.card));
          fits = ((game.LegalMask(t) >> action) & 1) && game.ActionCard(t, action) == m.card;
        } else {
          const auto& hand = t.hand[m.player];
          const auto it = std::find(hand.begin(), hand.begin() + t.hand_count[m.player], m.card);
          fits = it != hand.begin() + t.hand_count[m.player];
          const int slot = static_cast<int>(it - hand.begin());
          action =
              game.EncodeMove(m.kind == Move::Kind::kPlay ? Move::Play(slot) : Move::Discard(slot));
          fits = fits && ((game.LegalMask(t) >> action) & 1);
        }
        if (!fits) break;
        game.ApplyUnchecked(t, action);
      }
      if (!fits) continue;
      exact[past] += 1;
      consistent += 1;
    } while (std::next_permutation(order.begin(), order.end()));
    REQUIRE(consistent > 0);
    const int n = 20000;
    std::map<std::string, double> sampled;
    Rng rng(seed + 1000);
    for (int k = 0; k < n; ++k) {
      const auto w = SampleWorldHistory(game, s, g.seen, rng);
      REQUIRE(w.ok());
      sampled[HiddenPast(game, w->deal, w->actions, opp)] += 1;
    }
    double chi2 = 0;
    for (const auto& [past, count] : exact) {
      const double expected = n * count / consistent;
      const double got = sampled.count(past) ? sampled.at(past) : 0.0;
      chi2 += (got - expected) * (got - expected) / expected;
    }
    for (const auto& [past, count] : sampled) CHECK(exact.count(past) == 1);  // only real pasts
    const int df = static_cast<int>(exact.size()) - 1;
    INFO("pasts " << exact.size() << ", chi2 " << chi2);
    CHECK(exact.size() > 1);
    CHECK(chi2 < Critical(std::max(df, 1)));
  }
  CHECK(games_with_pile_draws >= 1);
}

}  // namespace
}  // namespace lcfr::engine
