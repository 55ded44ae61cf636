// search/experimental/: racing, the value network's cut, the belief and the oracles (kept to
// measure them; docs/experiments.md).
#include <algorithm>
#include <atomic>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/card.h"
#include "engine/worlds.h"
#include "search/experimental/oracles.h"
#include "search/match.h"
#include "search/player.h"
#include "tests/search/search_test_util.h"
#include "traversal/evaluators.h"

namespace lcfr::search {
namespace {

using engine::Card;
using engine::LostCities;
using engine::State;
using traversal::EvaluatorFactory;
using namespace testing;

// A state after `decisions` decisions of uniformly random play from deal `seed` (or earlier if
// the game ends first: the last non-terminal state).
State RandomPlayState(const LostCities& game, uint64_t seed, int decisions) {
  Rng rng(seed);
  State s = game.Deal(rng);
  for (int k = 0; k < decisions; ++k) {
    State next = s;
    const std::vector<int> legal = game.LegalActions(next);
    game.ApplyUnchecked(next, legal[rng.Uniform(static_cast<uint32_t>(legal.size()))]);
    if (LostCities::IsTerminal(next)) break;
    s = next;
  }
  return s;
}

std::vector<Card> Sorted(std::vector<Card> cards) {
  std::sort(cards.begin(), cards.end());
  return cards;
}

TEST_CASE("Search's racing drops the candidates that trail and ends early", "[search]") {
  const LostCities game;
  const State s = LastTurn(game);
  // Every world ends the same way for each candidate here: the paired differences have no noise,
  // so after the first phase every candidate that trails Y10's play drops out, and Y10's play
  // then beats b clearly: the decision ends after one phase of 1/8 of uniform's rounds.
  Blueprint blueprint;
  blueprint.bot = "discard-only";
  SearchConfig config;
  config.rollouts = 800;
  config.allocation = Allocation::kRacing;
  auto player = Make(game, blueprint, config);
  Rng rng(5);
  const int play = game.EncodeMove(engine::Move::Play(0));
  CHECK(player->ActOnState(game, s, rng) == play);
  const SearchDecision& d = player->last_decision();
  const int count = static_cast<int>(d.candidates.size());
  REQUIRE(count > 4);
  const int phase = config.rollouts / count / 8;
  CHECK(d.rollouts == static_cast<int64_t>(phase) * count);
  CHECK(d.rounds == phase);
  const auto at = [&](int a) {
    return std::find(d.candidates.begin(), d.candidates.end(), a) - d.candidates.begin();
  };
  CHECK(d.mean[at(play)] == Approx(0.01));
  CHECK(d.mean[at(d.blueprint)] == Approx(-0.09));

  // A blueprint that plays Y10 itself, the oracle rolling out: every other candidate trails it,
  // b is left alone, and the decision ends after the first phase too.
  blueprint.bot = "heuristic-balanced";
  config.rollout_policy = "discard-only";
  auto own = Make(game, blueprint, config);
  Rng rng2(5);
  CHECK(own->ActOnState(game, s, rng2) == play);
  REQUIRE(own->last_decision().blueprint == play);
  CHECK(own->last_decision().rollouts == static_cast<int64_t>(phase) * count);
  CHECK(own->report().deviations == 0);

  // With noise (the model stand-in's rollouts from a game's start), racing spends no more than
  // the budget, b plays every round, and a candidate that dropped out played fewer.
  const LostCities short_game(ShortRules());
  Blueprint model;
  model.play.source = play::PlayPolicy::Source::kCurrent;
  config.rollouts = 400;
  config.candidates = 0;
  config.rollout_policy = "";
  auto noisy = Make(short_game, model, config, Pseudo(short_game));
  int64_t dropped = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const State start = short_game.DealFromSeed(seed);
    Rng rng3(seed);
    noisy->ActOnState(short_game, start, rng3);
    const SearchDecision& e = noisy->last_decision();
    CHECK(e.rollouts <= config.rollouts);
    const auto kb =
        std::find(e.candidates.begin(), e.candidates.end(), e.blueprint) - e.candidates.begin();
    int64_t played = 0;
    for (size_t k = 0; k < e.candidates.size(); ++k) {
      played += e.played[k];
      CHECK(e.played[k] <= e.played[kb]);
      dropped += e.played[k] < e.played[kb];
    }
    CHECK(played == e.rollouts);
    CHECK(e.played[kb] == e.rounds);
  }
  CHECK(dropped > 0);
}

TEST_CASE("Search cuts rollouts with the value network at rollout_depth", "[search]") {
  const LostCities game(ShortRules());
  const EvaluatorFactory constant = [&game](int) -> std::unique_ptr<traversal::Evaluator> {
    return std::make_unique<ConstantValueEvaluator>(game, 0.37f);
  };
  Blueprint model;
  model.play.source = play::PlayPolicy::Source::kCurrent;
  model.value_scale = 2.0;
  const State start = game.DealFromSeed(4);
  const int mover = LostCities::CurrentPlayer(start);
  for (const Blueprint::Value input : {Blueprint::Value::kInfoset, Blueprint::Value::kHistory}) {
    model.value = input;
    for (int depth : {1, 2, 3, 5}) {
      INFO("depth " << depth << ", input " << static_cast<int>(input));
      SearchConfig config;
      config.rollouts = 40;
      config.rollout_depth = depth;
      config.width = 8;
      ConstantValueEvaluator::value_rows = 0;
      auto player = Make(game, model, config, constant);
      Rng rng(3);
      player->ActOnState(game, start, rng);
      const SearchDecision& d = player->last_decision();
      REQUIRE(d.rollouts > 0);
      // Who is to move after the candidate and `depth` more decisions (any of them: the turn's
      // order does not depend on the cards) is who the value is for: sum_b sigma(b) 0.37, x2.
      State t = start;
      for (int k = 0; k <= depth; ++k) game.ApplyUnchecked(t, game.LegalActions(t)[0]);
      const double expected = (LostCities::CurrentPlayer(t) == mover ? 1 : -1) * 0.74;
      for (size_t k = 0; k < d.candidates.size(); ++k) CHECK(d.mean[k] == Approx(expected));
      CHECK(player->report().cut == d.rollouts);
      CHECK(ConstantValueEvaluator::value_rows == d.rollouts);
      CHECK(d.chosen == d.blueprint);  // no candidate is better
    }
  }
  // A depth the game never reaches cuts nothing: the same decision as without a depth.
  SearchConfig config;
  config.rollouts = 30;
  config.threshold = 0.0;
  model.value = Blueprint::Value::kInfoset;
  const LostCities classic;
  const State last = LastTurn(classic);
  auto full = Make(classic, model, config, constant);
  config.rollout_depth = 100000;
  auto deep = Make(classic, model, config, constant);
  Rng rng1(8), rng2(8);
  full->ActOnState(classic, last, rng1);
  deep->ActOnState(classic, last, rng2);
  CHECK(deep->report().cut == 0);
  CHECK(deep->last_decision().mean == full->last_decision().mean);
  CHECK(deep->last_decision().chosen == full->last_decision().chosen);
  // A rollout depth needs a model with a value network.
  config.rollout_depth = 4;
  Blueprint bot;
  bot.bot = "heuristic-balanced";
  auto over_bot = SearchPlayer::Create(game, bot, config, constant);
  REQUIRE_FALSE(over_bot.ok());
  CHECK_THAT(std::string(over_bot.status().message()),
             Catch::Contains("--rollout-depth needs a model with a value network"));
  model.value = Blueprint::Value::kNone;
  CHECK_FALSE(SearchPlayer::Create(game, model, config, constant).ok());
}

TEST_CASE("Search's belief weighs the worlds by the opponent's moves", "[search]") {
  const LostCities game(ShortRules());
  Blueprint model;
  model.play.source = play::PlayPolicy::Source::kCurrent;
  SearchConfig config;
  config.rollouts = 40;
  config.belief = 64;
  const EvaluatorFactory uniform = [](int) -> std::unique_ptr<traversal::Evaluator> {
    return std::make_unique<traversal::UniformEvaluator>();
  };
  // A model that finds every legal move equally likely, over moves whose legal alternatives do
  // not depend on the hand (discards and deck draws, no expedition started), leaves every world
  // its weight: the effective number of worlds is all of them.
  {
    auto player = Make(game, model, config, uniform);
    const State s = ObservedPrefix(game, 3, 40, *player, /*discards=*/true);
    Rng rng(5);
    player->ActOnState(game, s, rng);
    CHECK(player->last_decision().belief_ess == Approx(64.0));
    CHECK(player->report().believed == 1);
    CHECK(player->report().belief_worlds == 64);
  }
  // A model whose moves depend on the hand tells the worlds apart; the belief's rows are asked
  // through the batcher (one per opponent decision and world, on top of the rollouts').
  {
    auto player = Make(game, model, config, Pseudo(game));
    const State s = ObservedPrefix(game, 3, 40, *player);
    Rng rng(5);
    player->ActOnState(game, s, rng);
    const double ess = player->last_decision().belief_ess;
    CHECK(ess >= 1.0);
    CHECK(ess < 63.0);
    SearchConfig plain = config;
    plain.belief = 0;
    auto uniform_player = Make(game, model, plain, Pseudo(game));
    Rng rng2(5);
    uniform_player->ActOnState(game, s, rng2);
    CHECK(player->report().policy_calls >= uniform_player->report().policy_calls + 64 * 20 - 64);
  }
  // A match tells the searching player every move: every searched decision has its belief, the
  // first of a game after another game too (4 games: the searcher opens games 0 and 2).
  {
    SearchConfig few = config;
    few.rollouts = 8;
    few.belief = 4;
    auto played = PlaySearchMatch(game, model, few, Pseudo(game), "random", 4, 3, 1);
    REQUIRE(played.ok());
    CHECK(played->search.believed == played->search.searched);
    CHECK(played->search.belief_missing == 0);
    CHECK(played->search.believed > 0);
  }
  // Without the game's moves (never observed) a decision deals uniform worlds, and says so.
  {
    auto player = Make(game, model, config, Pseudo(game));
    const State s = game.DealFromSeed(9);
    State t = s;
    game.ApplyUnchecked(t, game.LegalActions(t)[0]);
    game.ApplyUnchecked(t, game.deck_action());  // the opponent to move, two moves unseen
    Rng rng(5);
    player->ActOnState(game, t, rng);
    CHECK(player->report().belief_missing == 1);
    CHECK(player->report().believed == 0);
    CHECK(player->last_decision().belief_ess == 0);
  }
}

TEST_CASE("Search's belief decides the same for any widths and workers", "[search][threads]") {
  const LostCities game(ShortRules());
  SearchConfig config;
  config.rollouts = 30;
  config.belief = 24;
  config.belief_power = 0.5;
  config.threshold = 0.5;
  DecideAtShapes(
      game, config,
      [](const SearchPlayer& player, uint64_t seed) {
        INFO("seed " << seed << ", missing " << player.report().belief_missing << ", searched "
                     << player.report().searched);
        CHECK(player.report().believed == 1);
      },
      [](const SearchDecision& d, const SearchDecision& first) {
        CHECK(d.belief_ess == first.belief_ess);
      });
}

TEST_CASE("Search's belief options are checked, naming the flag", "[search]") {
  auto message = [](SearchConfig c) { return std::string(c.Validate().message()); };
  SearchConfig c;
  c.belief = -1;
  CHECK_THAT(message(c), Catch::Contains("--belief must be in"));
  c = {};
  c.belief_power = 0;
  CHECK_THAT(message(c), Catch::Contains("--belief-power must be in [0.001, 1] (got 0)"));
  c.belief_power = 1.5;
  CHECK_THAT(message(c), Catch::Contains("--belief-power"));
  // A bot blueprint with bot rollouts has no model to weigh the moves with.
  const LostCities game;
  Blueprint bot;
  bot.bot = "heuristic-balanced";
  c = {};
  c.belief = 10;
  auto player = SearchPlayer::Create(game, bot, c, {});
  REQUIRE_FALSE(player.ok());
  CHECK_THAT(std::string(player.status().message()), Catch::Contains("--belief needs a model"));
}

TEST_CASE("Search's oracle hand reads the opponent's true hand, and only with the flag",
          "[search]") {
  const LostCities game;
  // Two deals that look the same to player 0: the opponent's first card swapped with the deck's
  // top card (both hidden from player 0).
  const State s = game.DealFromSeed(7);
  State t = s;
  std::swap(t.hand[1][0], t.deck[t.deck_size - 1]);
  std::sort(t.hand[1].begin(), t.hand[1].begin() + t.hand_count[1]);
  game.RefreshCaches(t);
  REQUIRE(game.CheckInvariants(t).ok());
  REQUIRE(game.MoverView(t) == game.MoverView(s));
  REQUIRE(t.hand[1] != s.hand[1]);
  Blueprint bot;
  bot.bot = "heuristic-balanced";
  SearchConfig config;
  config.rollouts = 400;
  auto means = [&](const SearchConfig& c, const State& state) {
    auto player = Make(game, bot, c);
    Rng rng(3);
    player->ActOnState(game, state, rng);
    return player->last_decision().mean;
  };
  // Without it the search reads only what player 0 knows: the same means for both deals.
  CHECK(means(config, s) == means(config, t));
  // With it the worlds deal each deal's own hand: the means differ, and repeat for the same one.
  config.oracle_hand = true;
  const std::vector<double> oracle = means(config, s);
  CHECK(oracle != means(config, t));
  CHECK(oracle == means(config, s));
  CHECK(oracle.size() == game.LegalActions(s).size());  // a bot blueprint: every legal action
  // With the deck's order too, every round plays the true state: the means differ from the
  // oracle hand's, repeat, and differ between the two deals.
  config.oracle_deck = true;
  const std::vector<double> all = means(config, s);
  CHECK(all != oracle);
  CHECK(all == means(config, s));
  CHECK(all != means(config, t));
  // Two deals with the same hands but another deck order (two deck cards swapped): the oracle
  // deck plays each one's own.
  State u = s;
  std::swap(u.deck[0], u.deck[u.deck_size - 1]);
  REQUIRE(game.CheckInvariants(u).ok());
  CHECK(all != means(config, u));
  config.oracle_deck = false;
  // It replaces the worlds a belief would draw.
  config.belief = 10;
  CHECK_THAT(std::string(config.Validate().message()),
             Catch::Contains("--oracle-hand and --belief cannot be combined"));
  config.belief = 0;
  config.oracle_hand = false;
  config.oracle_deck = true;
  CHECK_THAT(std::string(config.Validate().message()),
             Catch::Contains("--oracle-deck needs --oracle-hand"));
}

TEST_CASE("OracleHandWorld keeps the opponent's true hand and draws only the deck's order",
          "[search]") {
  const LostCities game;
  int reordered = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const State s = RandomPlayState(game, seed, static_cast<int>(seed * 13 % 140));
    const int opp = 1 - s.player;
    Rng rng(seed);
    const State w = OracleHandWorld(s, rng);
    INFO("seed " << seed);
    REQUIRE(game.CheckInvariants(w).ok());
    CHECK(game.MoverView(w) == game.MoverView(s));
    // The opponent's hand is the real one, unknown cards too (SampleWorld's would differ).
    const std::vector<Card> real(s.hand[opp].begin(), s.hand[opp].begin() + s.hand_count[opp]);
    const std::vector<Card> dealt(w.hand[opp].begin(), w.hand[opp].begin() + w.hand_count[opp]);
    CHECK(dealt == Sorted(real));
    // The deck holds the same cards, reshuffled: its order is the only thing drawn.
    const std::vector<Card> deck(s.deck.begin(), s.deck.begin() + s.deck_size);
    const std::vector<Card> drawn(w.deck.begin(), w.deck.begin() + w.deck_size);
    CHECK(Sorted(drawn) == Sorted(deck));
    reordered += drawn != deck;
    for (size_t j = w.deck_size; j < w.deck.size(); ++j) CHECK(w.deck[j] == engine::kNoCard);
  }
  CHECK(reordered >= 15);  // decks of two or more cards come back shuffled
}

TEST_CASE("OracleWorld is the true state, the deck's drawn cards cleared", "[search]") {
  const LostCities game;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const State s = RandomPlayState(game, seed, static_cast<int>(seed * 13 % 140));
    const State w = OracleWorld(s);
    INFO("seed " << seed);
    REQUIRE(game.CheckInvariants(w).ok());
    CHECK(w.hand == s.hand);
    CHECK(w.deck_size == s.deck_size);
    CHECK(std::equal(w.deck.begin(), w.deck.begin() + w.deck_size, s.deck.begin()));
    for (size_t j = w.deck_size; j < w.deck.size(); ++j) CHECK(w.deck[j] == engine::kNoCard);
    // The game goes on from it as from the state itself.
    State a = s, b = w;
    Rng rng(seed);
    while (!LostCities::IsTerminal(a)) {
      const std::vector<int> legal = game.LegalActions(a);
      REQUIRE(legal == game.LegalActions(b));
      const int action = legal[rng.Uniform(static_cast<uint32_t>(legal.size()))];
      game.ApplyUnchecked(a, action);
      game.ApplyUnchecked(b, action);
    }
    REQUIRE(LostCities::IsTerminal(b));
    CHECK(LostCities::Payoff(a, 0) == LostCities::Payoff(b, 0));
  }
}

TEST_CASE("OpponentHandMatch scores the share of a world's unknown opponent cards held truly",
          "[search]") {
  const LostCities game;
  int scored = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const State s = RandomPlayState(game, seed, static_cast<int>(seed * 13 % 140));
    INFO("seed " << seed);
    const int unknown = engine::OpponentUnknownCards(s);
    if (unknown == 0 || s.deck_size == 0) continue;
    ++scored;
    Rng rng(seed);
    // The true hand scores 1.
    CHECK(OpponentHandMatch(OracleHandWorld(s, rng), s) == 1.0);
    // Uniform worlds score unknown / (unknown + deck) on average: the share of the hidden cards
    // that the opponent's unknown slots hold (4,000 worlds; the sample mean's standard error is
    // below 0.008).
    double sum = 0;
    const int n = 4000;
    for (int k = 0; k < n; ++k) {
      const double m = OpponentHandMatch(engine::SampleWorld(game, s, rng), s);
      REQUIRE(m >= 0.0);
      REQUIRE(m <= 1.0);
      sum += m;
    }
    CHECK(sum / n == Approx(static_cast<double>(unknown) / (unknown + s.deck_size)).margin(0.03));
    // A world whose unknown slots hold the deck's cards only scores 0: swap the opponent's
    // unknown cards for deck cards (as many as fit).
    if (s.deck_size >= unknown) {
      State w = OracleHandWorld(s, rng);
      const int opp = 1 - s.player;
      int d = 0;
      for (int j = 0; j < w.hand_count[opp]; ++j) {
        Card& card = w.hand[opp][j];
        if ((w.known[opp][engine::CardColor(card)] >> engine::CardIndex(card)) & 1) continue;
        std::swap(card, w.deck[d++]);
      }
      CHECK(OpponentHandMatch(w, s) == 0.0);
    }
  }
  CHECK(scored >= 10);
  // With no unknown card (every card of the opponent's hand known from pile draws): -1.
  State s = RandomPlayState(game, 3, 30);
  const int opp = 1 - s.player;
  for (auto& mask : s.known[opp]) mask = 0;
  for (int j = 0; j < s.hand_count[opp]; ++j) {
    const Card card = s.hand[opp][j];
    s.known[opp][engine::CardColor(card)] |= static_cast<uint16_t>(1u << engine::CardIndex(card));
  }
  REQUIRE(engine::OpponentUnknownCards(s) == 0);
  CHECK(OpponentHandMatch(s, s) == -1.0);
}

}  // namespace
}  // namespace lcfr::search
