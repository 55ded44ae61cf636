// Kuhn and Leduc poker and the exact solvers, checked against published values
// (OpenSpiel's exploitability tests; Kuhn's equilibrium family, Kuhn 1950).
#include <catch2/catch.hpp>
#include <map>
#include <span>
#include <vector>

#include "engine/exact.h"
#include "engine/game.h"
#include "engine/kuhn.h"
#include "engine/leduc.h"
#include "engine/lost_cities.h"

namespace lcfr::engine {
namespace {

static_assert(Game<LostCities>);
static_assert(EnumerableGame<KuhnPoker>);
static_assert(EnumerableGame<LeducPoker>);

template <typename G>
void Uniform(const G& game, const typename G::State& s, std::span<float> out) {
  const uint32_t legal = game.LegalMask(s);
  const float p = 1.0f / static_cast<float>(std::popcount(legal));
  for (int a = 0; a < game.num_actions(); ++a) out[a] = (legal >> a & 1) ? p : 0.0f;
}

// Kuhn's equilibrium family with parameter alpha in [0, 1/3]; probabilities of betting/calling.
void KuhnEquilibrium(double alpha, const KuhnPoker::State& s, std::span<float> out) {
  const int player = KuhnPoker::CurrentPlayer(s);
  const int card = s.card[player];  // 0 J, 1 Q, 2 K
  double bet = 0;
  if (player == 0 && s.length == 0) {
    bet = card == 0 ? alpha : card == 1 ? 0.0 : 3 * alpha;
  } else if (player == 0) {  // after pass, bet: call?
    bet = card == 0 ? 0.0 : card == 1 ? alpha + 1.0 / 3 : 1.0;
  } else if (s.history[0] == KuhnPoker::kBet) {  // facing a bet: call?
    bet = card == 0 ? 0.0 : card == 1 ? 1.0 / 3 : 1.0;
  } else {  // after a pass: bet?
    bet = card == 0 ? 1.0 / 3 : card == 1 ? 0.0 : 1.0;
  }
  out[KuhnPoker::kBet] = static_cast<float>(bet);
  out[KuhnPoker::kPass] = static_cast<float>(1 - bet);
}

TEST_CASE("Kuhn: uniform policy matches the published best responses", "[toy]") {
  KuhnPoker game;
  ExactSolver<KuhnPoker> solver(game);
  CHECK(solver.infosets().size() == 12);
  const auto result =
      solver.Exploitability([&](const auto& s, auto out) { Uniform(game, s, out); });
  CHECK(result.br_value[0] == Approx(0.5).margin(1e-12));
  CHECK(result.br_value[1] == Approx(5.0 / 12).margin(1e-12));
  CHECK(result.nash_conv == Approx(11.0 / 12).margin(1e-12));
  CHECK(result.exploitability == Approx(11.0 / 24).margin(1e-12));
}

TEST_CASE("Kuhn: the equilibrium family has value -1/18 and zero exploitability", "[toy]") {
  KuhnPoker game;
  ExactSolver<KuhnPoker> solver(game);
  for (double alpha : {0.0, 0.1, 1.0 / 3}) {
    const auto result =
        solver.Exploitability([&](const auto& s, auto out) { KuhnEquilibrium(alpha, s, out); });
    INFO("alpha " << alpha);
    CHECK(result.value[0] == Approx(-1.0 / 18).margin(1e-6));
    CHECK(result.exploitability == Approx(0).margin(1e-6));
  }
  // A perturbed equilibrium is exploitable.
  const auto off = solver.Exploitability([&](const auto& s, auto out) {
    KuhnEquilibrium(0.2, s, out);
    if (KuhnPoker::CurrentPlayer(s) == 1 && s.card[1] == 0 && s.history[0] == KuhnPoker::kPass) {
      out[KuhnPoker::kBet] = 0.0f, out[KuhnPoker::kPass] = 1.0f;  // J never bluffs
    }
  });
  CHECK(off.exploitability > 0.01);
}

TEST_CASE("Leduc: uniform policy matches OpenSpiel's NashConv and value", "[toy]") {
  LeducPoker game;
  ExactSolver<LeducPoker> solver(game);
  const auto result =
      solver.Exploitability([&](const auto& s, auto out) { Uniform(game, s, out); });
  CHECK(result.nash_conv == Approx(4.747222222222222).margin(1e-9));
  CHECK(result.value[0] == Approx(-0.078125).margin(1e-9));
}

TEST_CASE("Leduc: betting rules and payoffs", "[toy]") {
  LeducPoker game;
  using L = LeducPoker;
  auto play = [&](L::State s, std::initializer_list<int> actions) {
    for (int a : actions) {
      REQUIRE((game.LegalMask(s) >> a & 1));
      L::State before = s;
      const auto undo = game.ApplyUnchecked(s, a);
      L::State after = s;
      game.Undo(s, a, undo);
      REQUIRE(s == before);
      s = after;
    }
    return s;
  };
  // Ks (card 4) vs Qh (card 3), board Jh (card 1).
  const L::State deal = L::DealCards(4, 3, 1);
  CHECK(game.LegalMask(deal) == ((1u << L::kCall) | (1u << L::kRaise)));  // no fold unfaced
  L::State s = play(deal, {L::kRaise, L::kRaise});
  CHECK(game.LegalMask(s) == ((1u << L::kFold) | (1u << L::kCall)));  // two raises: capped
  s = play(s, {L::kCall});
  CHECK(s.round == 1);
  CHECK(L::CurrentPlayer(s) == 0);
  CHECK(s.contribution[0] == 5);
  s = play(s, {L::kCall, L::kRaise, L::kCall});
  REQUIRE(L::IsTerminal(s));
  CHECK(L::Payoff(s, 0) == 9);  // K high beats Q high: 1 + 2 + 2 + 4
  CHECK(L::Payoff(s, 1) == -9);
  CHECK(L::ToString(s) == "Ks|Qh Jh rrc/crc");
  // A pair with the board wins; a fold loses what was put in.
  const L::State pair = L::DealCards(0, 4, 1);  // Js vs Ks, board Jh
  CHECK(L::Payoff(play(pair, {L::kCall, L::kCall, L::kCall, L::kCall}), 0) == 1);
  CHECK(L::Payoff(play(pair, {L::kRaise, L::kFold}), 0) == 1);
  CHECK(L::Payoff(play(pair, {L::kCall, L::kRaise, L::kFold}), 1) == 1);
  // Equal ranks split.
  CHECK(L::Payoff(play(L::DealCards(4, 5, 0), {L::kCall, L::kCall, L::kCall, L::kCall}), 0) == 0);
}

TEST_CASE("Kuhn and Leduc: Deal samples every deal of AllDeals uniformly", "[toy]") {
  Rng rng(5);
  LeducPoker leduc;
  std::map<std::array<uint8_t, 3>, int> counts;
  const int n = 120000;
  for (int i = 0; i < n; ++i) ++counts[leduc.Deal(rng).card];
  CHECK(counts.size() == leduc.AllDeals().size());
  for (const auto& [cards, count] : counts) CHECK(std::abs(count - 1000) < 160);  // ~5 sigma
  KuhnPoker kuhn;
  std::map<std::array<uint8_t, 2>, int> kuhn_counts;
  for (int i = 0; i < 60000; ++i) ++kuhn_counts[kuhn.Deal(rng).card];
  CHECK(kuhn_counts.size() == 6);
  for (const auto& [cards, count] : kuhn_counts) CHECK(std::abs(count - 10000) < 500);
}

}  // namespace
}  // namespace lcfr::engine
