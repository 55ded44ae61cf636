// training/search.h: the search's decisions on constructed positions, its determinism across
// widths, workers and match threads, its time budget and its refusals (network stand-ins; the
// real model's figures are in benchmarks/README.md).
#include "training/search.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "engine/card.h"
#include "traversal/evaluators.h"

namespace lcfr::training {
namespace {

using engine::Card;
using engine::LostCities;
using engine::State;

EvaluatorFactory Pseudo(const LostCities& game) {
  return [&game](int) -> std::unique_ptr<traversal::Evaluator> {
    return std::make_unique<traversal::PseudoNetworkEvaluator>(game.EncodingSize(),
                                                               game.num_actions(), 7);
  };
}

// Classic rules, games cut at 150 decisions (the stand-in network's games are long).
engine::Rules ShortRules() {
  engine::Rules rules;
  rules.max_decisions = 150;
  return rules;
}

// The last turn: player 0 to play a card, one card left in the deck. Player 0 holds Y10 (slot 0)
// and has Y5 Y6 out (-9 points); the opponent has nothing out. Playing Y10 wins +1 to 0 when
// the deck is drawn next; every other move loses.
State LastTurn(const LostCities& game) {
  engine::CardPool pool(game.rules());
  auto take = [&](const std::string& name) {
    auto card = pool.Take(name);
    REQUIRE(card.ok());
    return *card;
  };
  State s = engine::EmptyState();
  auto put_hand = [&](int p, std::vector<std::string> names) {
    std::vector<Card> cards;
    for (const auto& n : names) cards.push_back(take(n));
    std::sort(cards.begin(), cards.end());
    for (size_t j = 0; j < cards.size(); ++j) s.hand[p][j] = cards[j];
    s.hand_count[p] = static_cast<uint8_t>(cards.size());
  };
  put_hand(0, {"Y10", "B2", "B3", "W2", "W3", "G2", "G3", "R2"});
  put_hand(1, {"B4", "B5", "B6", "B7", "B8", "B9", "B10", "W4"});
  for (const char* n : {"Y5", "Y6"}) {
    const Card c = take(n);
    s.expedition[0][engine::CardColor(c)] |= static_cast<uint16_t>(1u << engine::CardIndex(c));
  }
  s.deck[0] = take("W5");
  s.deck_size = 1;
  // Every other card in its color's discard pile.
  for (int c = 0; c < game.rules().colors; ++c) {
    for (int i = 0; i < game.rules().cards_per_color(); ++i) {
      const Card card = engine::MakeCard(c, i);
      if (pool.Used(card)) continue;
      s.pile[c][s.pile_size[c]++] = static_cast<uint8_t>(i);
    }
  }
  s.decisions = 200;
  s.last_discard = -1;
  game.RefreshCaches(s);
  const absl::Status ok = game.CheckInvariants(s);
  INFO(ok.message());
  REQUIRE(ok.ok());
  return s;
}

std::unique_ptr<SearchPlayer> Make(const LostCities& game, const Blueprint& blueprint,
                                   const SearchConfig& config, const EvaluatorFactory& f = {}) {
  auto player = SearchPlayer::Create(game, blueprint, config, f);
  INFO(player.status().message());
  REQUIRE(player.ok());
  return *std::move(player);
}

TEST_CASE("Search finds the winning last move with an oracle rollout policy", "[search]") {
  const LostCities game;
  const State s = LastTurn(game);
  // discard-only draws the deck, which ends the game at once: an exact oracle here. As the
  // blueprint it would discard Y10 (slot 0) and lose.
  Blueprint blueprint;
  blueprint.bot = "discard-only";
  SearchConfig config;
  config.rollouts = 64;
  config.threshold = 2.0;
  auto player = Make(game, blueprint, config);
  engine::Rng rng(5);
  const int action = player->ActOnState(game, s, rng);
  const SearchDecision& d = player->last_decision();
  CHECK(d.blueprint == game.EncodeMove(engine::Move::Discard(0)));
  CHECK(action == game.EncodeMove(engine::Move::Play(0)));
  CHECK(d.chosen == action);
  CHECK(d.rounds == 64 / static_cast<int>(d.candidates.size()));
  const auto k = std::find(d.candidates.begin(), d.candidates.end(), action) - d.candidates.begin();
  CHECK(d.mean[k] == Approx(0.01));  // +1 point to 0
  const auto kb =
      std::find(d.candidates.begin(), d.candidates.end(), d.blueprint) - d.candidates.begin();
  CHECK(d.mean[kb] == Approx(-0.09));
  CHECK(player->stats().deviations == 1);
  // The paired differences have no noise here (every world ends the same way), so even a huge
  // threshold is cleared.
  config.threshold = 1e9;
  auto strict = Make(game, blueprint, config);
  engine::Rng rng2(5);
  CHECK(strict->ActOnState(game, s, rng2) == action);
  // A single round leaves the standard error unknown: the blueprint's move unless threshold 0.
  config.rollouts = 1;
  config.threshold = 1.0;
  auto one_round = Make(game, blueprint, config);
  engine::Rng rng3(5);
  CHECK(one_round->ActOnState(game, s, rng3) == d.blueprint);
  config.threshold = 0.0;
  auto one_round_zero = Make(game, blueprint, config);
  engine::Rng rng4(5);
  CHECK(one_round_zero->ActOnState(game, s, rng4) == action);
}

TEST_CASE("Search with one candidate returns it without rollouts", "[search]") {
  const LostCities game(ShortRules());
  // After a discard to the only pile, the draw decision has one legal action: the deck.
  State s = game.DealFromSeed(3);
  game.ApplyUnchecked(s, game.EncodeMove(engine::Move::Discard(0)));
  REQUIRE(game.LegalMask(s) == (1u << game.deck_action()));
  Blueprint model;
  model.play.source = PlayPolicy::Source::kCurrent;
  SearchConfig config;
  auto player = Make(game, model, config, Pseudo(game));
  engine::Rng rng(1);
  CHECK(player->ActOnState(game, s, rng) == game.deck_action());
  CHECK(player->last_decision().rollouts == 0);
  CHECK(player->stats().searched == 0);

  // --candidates 1 with a greedy blueprint: its own choice is the only candidate.
  const State start = game.DealFromSeed(4);
  model.play.greedy = true;
  config.candidates = 1;
  auto top1 = Make(game, model, config, Pseudo(game));
  engine::Rng rng2(2);
  const int action = top1->ActOnState(game, start, rng2);
  CHECK(top1->last_decision().candidates == std::vector<int>{action});
  CHECK(top1->last_decision().rollouts == 0);
  auto evaluator = Pseudo(game)(0);
  traversal::PolicyClient direct = traversal::PolicyClient::Direct(evaluator.get());
  PolicyBot greedy(&direct, model.play, game);
  engine::Rng rng3(3);
  CHECK(greedy.ActOnState(game, start, rng3) == action);
  // --candidates 3: the blueprint's three most probable actions.
  config.candidates = 3;
  config.rollouts = 30;
  auto top3 = Make(game, model, config, Pseudo(game));
  engine::Rng rng4(2);
  top3->ActOnState(game, start, rng4);
  CHECK(top3->last_decision().candidates.size() == 3);
  CHECK(std::count(top3->last_decision().candidates.begin(), top3->last_decision().candidates.end(),
                   action) == 1);
}

TEST_CASE("Search decides the same for any widths and workers", "[search]") {
  const LostCities game(ShortRules());
  Blueprint model;
  model.play.source = PlayPolicy::Source::kCurrent;
  SearchConfig config;
  config.rollouts = 40;
  config.threshold = 0.5;
  std::vector<std::pair<int, int>> shapes = {{1, 1}, {2, 8}, {1, 5}, {3, 64}};
  std::vector<std::vector<SearchDecision>> decisions(shapes.size());
  for (size_t k = 0; k < shapes.size(); ++k) {
    config.workers = shapes[k].first;
    config.width = shapes[k].second;
    auto player = Make(game, model, config, Pseudo(game));
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      State s = game.DealFromSeed(seed);
      engine::Rng prefix(seed);
      for (int j = 0; j < static_cast<int>(seed) * 9; ++j) {
        const std::vector<int> legal = game.LegalActions(s);
        game.ApplyUnchecked(s, legal[prefix.Uniform(static_cast<uint32_t>(legal.size()))]);
      }
      engine::Rng rng(seed * 31);
      player->ActOnState(game, s, rng);
      decisions[k].push_back(player->last_decision());
    }
    CHECK(player->stats().rows_per_batch() <= config.width);
  }
  for (size_t k = 1; k < shapes.size(); ++k) {
    INFO("workers " << shapes[k].first << ", width " << shapes[k].second);
    for (size_t i = 0; i < decisions[0].size(); ++i) {
      CHECK(decisions[k][i].candidates == decisions[0][i].candidates);
      CHECK(decisions[k][i].mean == decisions[0][i].mean);
      CHECK(decisions[k][i].stderr_d == decisions[0][i].stderr_d);
      CHECK(decisions[k][i].chosen == decisions[0][i].chosen);
      CHECK(decisions[k][i].rollouts == decisions[0][i].rollouts);
    }
  }
  CHECK(decisions[0][0].rollouts > 0);
}

TEST_CASE("Search matches are the same on any number of threads", "[search]") {
  const LostCities game(ShortRules());
  SearchConfig config;
  config.rollouts = 6;
  Blueprint bot;
  bot.bot = "heuristic-balanced";
  Blueprint model;
  model.play.source = PlayPolicy::Source::kCurrent;
  for (const auto& [blueprint, opponent] :
       std::vector<std::pair<Blueprint, std::string>>{{bot, "random"}, {model, "self"}}) {
    const EvaluatorFactory evaluators = blueprint.is_model() ? Pseudo(game) : EvaluatorFactory{};
    int calls = 0;
    auto one = PlaySearchMatch(game, blueprint, config, evaluators, opponent, 4, 9, 1,
                               [&](int done) { calls = done; });
    auto two = PlaySearchMatch(game, blueprint, config, evaluators, opponent, 4, 9, 2);
    REQUIRE(one.ok());
    REQUIRE(two.ok());
    CHECK(calls == 4);
    CHECK(one->match.games == 4);
    CHECK(one->match.wins == two->match.wins);
    CHECK(one->match.score_diff_sum == two->match.score_diff_sum);
    CHECK(one->search.rollouts == two->search.rollouts);
    CHECK(one->search.deviations == two->search.deviations);
    CHECK(one->search.searched > 0);
  }
  auto bad = PlaySearchMatch(game, bot, config, {}, "nobody", 2, 1, 1);
  CHECK_FALSE(bad.ok());
}

TEST_CASE("Search stops at its time budget", "[search]") {
  const LostCities game;
  Blueprint bot;
  bot.bot = "heuristic-balanced";
  SearchConfig config;
  config.rollouts = 10000000;
  config.move_time_ms = 30;
  auto player = Make(game, bot, config);
  engine::Rng rng(1);
  const State s = game.DealFromSeed(5);
  player->ActOnState(game, s, rng);
  const SearchDecision& d = player->last_decision();
  CHECK(d.seconds < 5.0);
  CHECK(d.rollouts < config.rollouts);
  CHECK(d.rounds * static_cast<int64_t>(d.candidates.size()) <= d.rollouts);
}

TEST_CASE("Search configurations are checked, naming the flag", "[search]") {
  auto message = [](SearchConfig c) { return std::string(c.Validate().message()); };
  SearchConfig c;
  CHECK(c.Validate().ok());
  c.rollouts = 0;
  CHECK_THAT(message(c), Catch::Contains("--rollouts"));
  c = {};
  c.move_time_ms = -1;
  CHECK_THAT(message(c), Catch::Contains("--move-time-ms"));
  c = {};
  c.worlds = -2;
  CHECK_THAT(message(c), Catch::Contains("--worlds"));
  c = {};
  c.candidates = -1;
  CHECK_THAT(message(c), Catch::Contains("--candidates"));
  c = {};
  c.threshold = -0.5;
  CHECK_THAT(message(c), Catch::Contains("--threshold"));
  c = {};
  c.rollout_policy = "oracle";
  CHECK_THAT(message(c), Catch::Contains("--rollout-policy: unknown policy 'oracle'"));
  c = {};
  c.width = 0;
  CHECK_THAT(message(c), Catch::Contains("--search-width"));
  c = {};
  c.workers = 0;
  CHECK_THAT(message(c), Catch::Contains("--workers"));
  // The model plays, but no evaluators were given.
  const LostCities game;
  CHECK_FALSE(SearchPlayer::Create(game, Blueprint{}, SearchConfig{}, {}).ok());
  Blueprint unknown;
  unknown.bot = "nobody";
  CHECK_FALSE(SearchPlayer::Create(game, unknown, SearchConfig{}, {}).ok());
}

}  // namespace
}  // namespace lcfr::training
