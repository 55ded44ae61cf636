// engine/worlds.h: sampled worlds keep everything the player to move knows, do not depend on
// where the hidden cards really are, and deal those cards uniformly (a chi-square test).
#include "engine/worlds.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <vector>

#include "engine/bots.h"
#include "engine/lost_cities.h"
#include "engine/rng.h"

namespace lcfr::engine {
namespace {

// A state after `decisions` decisions of random play from deal `seed` (or earlier if the game
// ends first: the last non-terminal state).
State RandomPlayState(const LostCities& game, uint64_t seed, int decisions) {
  Rng rng(seed);
  State s = game.Deal(rng);
  RandomBot bot;
  for (int k = 0; k < decisions; ++k) {
    State next = s;
    game.ApplyUnchecked(next, bot.Act(game, game.MoverView(next), rng));
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

}  // namespace
}  // namespace lcfr::engine
