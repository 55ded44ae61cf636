// The generic conformance template: what every model of the Game concept (engine/game.h) must do,
// checked by seeded random playouts on Kuhn, Leduc and Lost Cities (classic and small variants).
// The Lost Cities suite (conformance_test.cc) adds the game's own invariants.
#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <vector>

#include "base/rng.h"
#include "engine/game.h"
#include "engine/kuhn.h"
#include "engine/leduc.h"
#include "engine/lost_cities.h"

namespace lcfr::engine {
namespace {

struct Totals {
  int games = 0;
  int64_t decisions = 0;
};

// At every state of `games` seeded random playouts:
// - the legal mask is within the action space, empty exactly at terminal states;
// - the player to move is 0 or 1 and the encoding has EncodingSize() finite values;
// - the mover's view, copied as bytes into fresh storage (as a memory stores it), encodes to
//   exactly the state's encoding;
// - Undo after ApplyUnchecked restores the state exactly, for every legal action;
// - a game ends within MaxDecisions() decisions;
// - terminal payoffs are zero-sum;
// - the same seed replays the same game (the deal and the actions).
template <Game G>
Totals CheckConformance(const G& game, int games, uint64_t seed) {
  Totals totals;
  const int actions = game.num_actions();
  REQUIRE(actions >= 1);
  REQUIRE(actions <= 32);
  REQUIRE(game.EncodingSize() >= 1);
  REQUIRE(game.EncodingVersion() >= 1);
  std::vector<float> features(game.EncodingSize());
  const uint32_t space = actions == 32 ? ~0u : (1u << actions) - 1;
  for (int g = 0; g < games; ++g) {
    Rng rng(DeriveSeed({seed, static_cast<uint64_t>(g)}));
    typename G::State s = game.Deal(rng);
    Rng replay_rng(DeriveSeed({seed, static_cast<uint64_t>(g)}));
    CHECK(game.Deal(replay_rng) == s);
    int decisions = 0;
    while (!game.IsTerminal(s)) {
      const uint32_t legal = game.LegalMask(s);
      REQUIRE(legal != 0);
      REQUIRE((legal & ~space) == 0);
      const int player = game.CurrentPlayer(s);
      REQUIRE((player == 0 || player == 1));
      game.Encode(s, features);
      bool finite = true;
      for (float f : features) finite &= std::isfinite(f);
      REQUIRE(finite);
      {
        const typename G::View view = game.MoverView(s);
        typename G::View copy;
        std::memcpy(&copy, &view, sizeof(view));
        std::vector<float> again(features.size(), -1.0f);
        game.Encode(copy, again);
        REQUIRE(std::memcmp(again.data(), features.data(), sizeof(float) * features.size()) == 0);
      }
      bool restored = true;
      for (uint32_t m = legal; m; m &= m - 1) {
        const int a = std::countr_zero(m);
        const typename G::State before = s;
        const auto undo = game.ApplyUnchecked(s, a);
        game.Undo(s, a, undo);
        restored &= s == before;
      }
      REQUIRE(restored);
      uint32_t pick = legal;
      for (uint32_t k = rng.Uniform(static_cast<uint32_t>(std::popcount(legal))); k > 0; --k) {
        pick &= pick - 1;
      }
      game.ApplyUnchecked(s, std::countr_zero(pick));
      ++decisions;
      REQUIRE(decisions <= game.MaxDecisions());
    }
    CHECK(game.LegalMask(s) == 0u);
    CHECK(static_cast<double>(game.Payoff(s, 0)) == -static_cast<double>(game.Payoff(s, 1)));
    ++totals.games;
    totals.decisions += decisions;
  }
  return totals;
}

TEST_CASE("Game conformance: Kuhn poker", "[conformance]") {
  const Totals t = CheckConformance(KuhnPoker(), 300, 1);
  CHECK(t.games == 300);
  CHECK(t.decisions >= 2 * 300);
}

TEST_CASE("Game conformance: Leduc poker", "[conformance]") {
  const Totals t = CheckConformance(LeducPoker(), 300, 2);
  CHECK(t.decisions >= 2 * 300);
}

TEST_CASE("Game conformance: Lost Cities, classic and variants", "[conformance]") {
  CHECK(CheckConformance(LostCities(), 20, 3).games == 20);
  Rules small;
  small.colors = 2;
  small.ranks = 3;
  small.wagers = 1;
  small.hand_size = 3;
  small.max_decisions = 40;  // the cap ends some games
  CHECK(CheckConformance(LostCities(small), 200, 4).games == 200);
  Rules six;
  six.colors = 6;
  six.hand_size = 9;
  CHECK(CheckConformance(LostCities(six), 10, 5).games == 10);
}

}  // namespace
}  // namespace lcfr::engine

namespace lcfr::engine {
namespace {

template <typename View>
bool SameBytes(const View& a, const View& b) {
  return std::memcmp(&a, &b, sizeof(View)) == 0;
}

TEST_CASE("game views: the toy games' views hide the opponent's card and the unrevealed board",
          "[conformance]") {
  const KuhnPoker kuhn;
  for (int mine = 0; mine < 3; ++mine) {
    std::vector<KuhnPoker::View> views;
    for (int other = 0; other < 3; ++other) {
      if (other != mine) views.push_back(kuhn.MoverView(KuhnPoker::DealCards(mine, other)));
    }
    CHECK(SameBytes(views[0], views[1]));
  }
  CHECK(!SameBytes(kuhn.MoverView(KuhnPoker::DealCards(0, 1)),
                   kuhn.MoverView(KuhnPoker::DealCards(2, 1))));
  const LeducPoker leduc;
  // Round one: the other card and the board are hidden.
  CHECK(SameBytes(leduc.MoverView(LeducPoker::DealCards(0, 2, 4)),
                  leduc.MoverView(LeducPoker::DealCards(0, 5, 3))));
  // Round two (call, call): the board is seen, the other card still not.
  auto round_two = [&](int mine, int other, int board) {
    LeducPoker::State s = LeducPoker::DealCards(mine, other, board);
    leduc.ApplyUnchecked(s, LeducPoker::kCall);
    leduc.ApplyUnchecked(s, LeducPoker::kCall);
    REQUIRE(s.round == 1);
    return leduc.MoverView(s);
  };
  CHECK(SameBytes(round_two(0, 2, 4), round_two(0, 5, 4)));
  CHECK(!SameBytes(round_two(0, 2, 4), round_two(0, 2, 3)));
}

TEST_CASE("history views: both hands, never future chance, from the mover's side",
          "[conformance]") {
  auto history = [](const auto& game, const auto& state) {
    typename std::decay_t<decltype(game)>::View v;
    game.HistoryView(state, v);
    return v;
  };
  const KuhnPoker kuhn;
  CHECK(!SameBytes(history(kuhn, KuhnPoker::DealCards(0, 1)),
                   history(kuhn, KuhnPoker::DealCards(0, 2))));
  const LeducPoker leduc;
  // Round one: the opponent's card is revealed, the board still to come is not.
  CHECK(SameBytes(history(leduc, LeducPoker::DealCards(0, 2, 4)),
                  history(leduc, LeducPoker::DealCards(0, 2, 5))));
  CHECK(!SameBytes(history(leduc, LeducPoker::DealCards(0, 2, 4)),
                   history(leduc, LeducPoker::DealCards(0, 5, 4))));

  const LostCities game;
  Rng rng(5);
  std::vector<float> a(game.EncodingSize()), b(game.EncodingSize());
  int checked = 0;
  for (int g = 0; g < 20; ++g) {
    State s = game.Deal(rng);
    for (int step = 0; !game.IsTerminal(s); ++step) {
      if (step % 7 == 3 && s.deck_size > 2) {
        const View view = history(game, s);
        game.Encode(view, a);
        // The deck order is future chance: reordering the deck changes nothing.
        State reordered = s;
        std::reverse(reordered.deck.begin(), reordered.deck.begin() + reordered.deck_size);
        REQUIRE(SameBytes(history(game, reordered), view));
        // The opponent's whole hand is in it: the known-in-the-opponent's-hand plane holds it.
        const int opp = 1 - s.player;
        for (int j = 0; j < s.hand_count[opp]; ++j) {
          const Card card = s.hand[opp][j];
          REQUIRE(((view.opponent_known[CardColor(card)] >> CardIndex(card)) & 1) == 1);
        }
        // From the mover's side: the same position with the seats swapped encodes the same.
        State swapped = s;
        std::swap(swapped.hand[0], swapped.hand[1]);
        std::swap(swapped.hand_count[0], swapped.hand_count[1]);
        std::swap(swapped.expedition[0], swapped.expedition[1]);
        std::swap(swapped.known[0], swapped.known[1]);
        std::swap(swapped.expedition_sum[0], swapped.expedition_sum[1]);
        std::swap(swapped.score[0], swapped.score[1]);
        swapped.player = static_cast<uint8_t>(1 - s.player);
        REQUIRE(game.CheckInvariants(swapped).ok());
        game.Encode(history(game, swapped), b);
        REQUIRE(std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) == 0);
        CHECK(game.Payoff(swapped, swapped.player) == game.Payoff(s, s.player));
        // And it differs from the infoset encoding whenever an unknown card is in that hand.
        game.Encode(s, b);
        bool unknown = false;
        for (int j = 0; j < s.hand_count[opp]; ++j) {
          const Card card = s.hand[opp][j];
          unknown |= ((s.known[opp][CardColor(card)] >> CardIndex(card)) & 1) == 0;
        }
        CHECK((std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) != 0) == unknown);
        ++checked;
      }
      const std::vector<int> actions = game.LegalActions(s);
      game.ApplyUnchecked(s, actions[rng.Uniform(static_cast<uint32_t>(actions.size()))]);
    }
  }
  CHECK(checked > 100);
}

}  // namespace
}  // namespace lcfr::engine
