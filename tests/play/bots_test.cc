#include "play/bots.h"

#include <algorithm>
#include <array>
#include <bit>
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "play/match.h"
#include "tests/engine/test_util.h"

namespace lcfr::play {

using engine::ActionMask;
using engine::EndReason;
using engine::LostCities;
using engine::Rules;
using engine::State;
using engine::View;
namespace {

TEST_CASE("bots: every bot makes only legal moves, on classic and variant rules", "[bots]") {
  Rng rules_rng(3);
  for (int variant = 0; variant < 40; ++variant) {
    const Rules rules = variant == 0 ? Rules{} : engine::testing::RandomRules(rules_rng);
    const LostCities game(rules);
    for (const std::string& name : BotNames()) {
      auto a = *MakeBot(name);
      auto b = *MakeBot("random");
      Bot* bots[2] = {a.get(), b.get()};
      Rng rng(static_cast<uint64_t>(variant));
      // PlayGame CHECKs legality of every action.
      const GameOutcome out = PlayGame(game, game.Deal(rng), bots, rng);
      CHECK(out.end != EndReason::kNotOver);
    }
  }
}

TEST_CASE("bots: discard-only never plays and scores 0", "[bots]") {
  const LostCities game;
  auto discard = *MakeBot("discard-only");
  auto random = *MakeBot("random");
  const MatchResult r = PlayMatch(game, *discard, *random, 200, 11);
  CHECK(r.score_a_sum == 0);
}

TEST_CASE("bots: the heuristic beats random >= 95% and discard-only clearly", "[bots]") {
  const LostCities game;
  auto random = *MakeBot("random");
  auto discard = *MakeBot("discard-only");
  for (const char* name :
       {"heuristic-cautious", "heuristic-balanced", "heuristic-aggressive", "heuristic-noisy"}) {
    auto h = *MakeBot(name);
    const MatchResult vs_random = PlayMatch(game, *h, *random, 400, 21);
    const MatchResult vs_discard = PlayMatch(game, *h, *discard, 400, 22);
    INFO(name << ": vs random " << vs_random.win_rate() << ", vs discard-only "
              << vs_discard.win_rate());
    CHECK(vs_random.win_rate_ci().low >= 0.95);
    CHECK(vs_discard.win_rate_ci().low > 0.70);
    CHECK(vs_discard.mean_score_diff() > 10.0);
  }
}

TEST_CASE("bots: decisions do not depend on hidden information", "[bots]") {
  const LostCities game;
  for (const std::string& name : BotNames()) {
    auto bot = *MakeBot(name);
    auto random = *MakeBot("random");
    for (uint64_t g = 0; g < 30; ++g) {
      Rng rng(g);
      State s = game.Deal(rng);
      while (!LostCities::IsTerminal(s)) {
        // Same view, other hidden cards: the same action from the same random stream.
        Rng shuffle(g * 1000 + s.decisions);
        const State twin = engine::testing::ResampleHidden(game, s, shuffle);
        const View view = game.MoverView(s);
        const View twin_view = game.MoverView(twin);
        REQUIRE(std::memcmp(&view, &twin_view, sizeof(View)) == 0);
        Rng r1 = rng;
        Rng r2 = rng;
        const int a1 = bot->Act(game, view, r1);
        const int a2 = bot->Act(game, twin_view, r2);
        if (a1 != a2) FAIL(name << " acted differently on hidden-only changes at " << s.decisions);
        Bot* actor = s.player == 0 ? bot.get() : random.get();
        game.ApplyUnchecked(s, actor->Act(game, game.MoverView(s), rng));
      }
    }
  }
}

TEST_CASE("bots: Probability is the distribution the bot plays from", "[bots]") {
  const LostCities game;
  for (const std::string& name : BotNames()) {
    INFO(name);
    auto bot = *MakeBot(name);
    Rng rng(11);
    State s = game.Deal(rng);
    // Along a game: the probabilities sum to 1 over the legal actions, are 0 elsewhere, and the
    // frequencies of 4,000 draws at one decision agree with them.
    for (int step = 0; step < 60 && !LostCities::IsTerminal(s); ++step) {
      const ActionMask legal = game.LegalMask(s);
      double total = 0;
      for (int a = 0; a < game.num_actions(); ++a) {
        const double p = bot->Probability(game, s, a);
        if (!((legal >> a) & 1)) CHECK(p == 0.0);
        total += p;
      }
      CHECK(total == Approx(1.0));
      if (step == 30) {
        std::vector<int> count(game.num_actions(), 0);
        constexpr int kDraws = 4000;
        for (int d = 0; d < kDraws; ++d) ++count[bot->ActOnState(game, s, rng)];
        for (int a = 0; a < game.num_actions(); ++a) {
          CHECK(static_cast<double>(count[a]) / kDraws ==
                Approx(bot->Probability(game, s, a)).margin(0.03));
        }
      }
      game.ApplyUnchecked(s, bot->ActOnState(game, s, rng));
    }
  }
}

TEST_CASE("bots: in six colours each heuristic plays the sixth as it plays the other five",
          "[bots]") {
  // The 2019 edition's long game. Each heuristic plays 2,000 games against heuristic-balanced
  // (seats alternating); per colour, how often it opened the expedition and how many cards it put
  // there. The sixth colour's figures must lie among the other five's: a bot blind to it (a loop to
  // 5, a table of 5) would leave it near 0.
  Rules rules;
  rules.colors = 6;
  const LostCities game(rules);
  auto random = *MakeBot("random");
  auto discard = *MakeBot("discard-only");
  for (const char* name :
       {"heuristic-cautious", "heuristic-balanced", "heuristic-aggressive", "heuristic-noisy"}) {
    INFO(name);
    auto bot = *MakeBot(name);
    auto balanced = *MakeBot("heuristic-balanced");
    constexpr int kGames = 2000;
    std::array<double, 6> opened{};
    std::array<double, 6> cards{};
    for (int g = 0; g < kGames; ++g) {
      const int seat = g % 2;
      Bot* bots[2] = {nullptr, nullptr};
      bots[seat] = bot.get();
      bots[1 - seat] = balanced.get();
      Rng rng(static_cast<uint64_t>(1000 + g / 2));  // pairs of games on one deal
      State s = game.Deal(rng);
      while (!LostCities::IsTerminal(s)) {
        game.ApplyUnchecked(s, bots[s.player]->ActOnState(game, s, rng));
      }
      for (int c = 0; c < 6; ++c) {
        opened[c] += s.expedition[seat][c] != 0;
        cards[c] += std::popcount(s.expedition[seat][c]);
      }
    }
    double open_lo = 1e9, open_hi = 0, cards_lo = 1e9, cards_hi = 0;
    for (int c = 0; c < 5; ++c) {
      open_lo = std::min(open_lo, opened[c] / kGames),
      open_hi = std::max(open_hi, opened[c] / kGames);
      cards_lo = std::min(cards_lo, cards[c] / kGames),
      cards_hi = std::max(cards_hi, cards[c] / kGames);
    }
    const double open6 = opened[5] / kGames;
    const double cards6 = cards[5] / kGames;
    INFO("opened: colours 1-5 in [" << open_lo << ", " << open_hi << "], the sixth " << open6
                                    << "; cards: [" << cards_lo << ", " << cards_hi
                                    << "], the sixth " << cards6);
    // Within the others' range, widened by about four binomial standard errors at 2,000 games.
    CHECK(open6 >= open_lo - 0.04);
    CHECK(open6 <= open_hi + 0.04);
    CHECK(cards6 >= cards_lo * 0.9);
    CHECK(cards6 <= cards_hi * 1.1);
    // And it plays the long game as it plays the classic one.
    const MatchResult vs_random = PlayMatch(game, *bot, *random, 400, 31);
    const MatchResult vs_discard = PlayMatch(game, *bot, *discard, 400, 32);
    INFO("vs random " << vs_random.win_rate() << ", vs discard-only " << vs_discard.win_rate());
    CHECK(vs_random.win_rate_ci().low >= 0.95);
    CHECK(vs_discard.win_rate_ci().low > 0.70);
  }
}

TEST_CASE("bots: unknown names are rejected with the list of known ones", "[bots]") {
  const auto bot = MakeBot("heuristic-reckless");
  REQUIRE_FALSE(bot.ok());
  CHECK(std::string(bot.status().message()).find("heuristic-cautious") != std::string::npos);
}

TEST_CASE("match: Wilson interval and seat alternation", "[match]") {
  const Interval ci = WilsonInterval(50, 100);
  CHECK(ci.low == Approx(0.4038).epsilon(0.001));
  CHECK(ci.high == Approx(0.5962).epsilon(0.001));
  // A bot against itself on paired deals: every pair is symmetric only for deterministic
  // bots, so discard-only mirrors exactly.
  const LostCities game;
  auto a = *MakeBot("discard-only");
  auto b = *MakeBot("discard-only");
  const MatchResult r = PlayMatch(game, *a, *b, 10, 1);
  CHECK(r.ties == 10);
  CHECK(r.mean_decisions() == 88.0);  // 44 deck cards, 2 decisions each
}

}  // namespace
}  // namespace lcfr::play
