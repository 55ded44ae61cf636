// training/search.h: the search's decisions on constructed positions, its determinism across
// widths, workers and match threads, its time budget and its refusals (network stand-ins; the
// real model's figures are in benchmarks/README.md).
#include "training/search.h"

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

#include "engine/agent_protocol.h"
#include "engine/card.h"
#include "engine/worlds.h"
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
  // --min-gain: the move gains 0.10 (+1 point against -9), whatever its standard error.
  config.min_gain = 0.09;
  auto small_floor = Make(game, blueprint, config);
  engine::Rng rng_small(5);
  CHECK(small_floor->ActOnState(game, s, rng_small) == action);
  config.min_gain = 0.11;
  auto high_floor = Make(game, blueprint, config);
  engine::Rng rng_high(5);
  CHECK(high_floor->ActOnState(game, s, rng_high) == d.blueprint);
  CHECK(high_floor->stats().deviations == 0);
  config.min_gain = 0.0;
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

TEST_CASE("Search's successive halving drops the worse candidates, never the blueprint's",
          "[search]") {
  const LostCities game;
  const State s = LastTurn(game);
  Blueprint blueprint;
  blueprint.bot = "discard-only";  // every legal action a candidate; the deck draw is an oracle
  SearchConfig config;
  config.rollouts = 300;
  config.allocation = "halving";
  auto player = Make(game, blueprint, config);
  engine::Rng rng(5);
  const int action = player->ActOnState(game, s, rng);
  const SearchDecision& d = player->last_decision();
  CHECK(action == game.EncodeMove(engine::Move::Play(0)));
  const int count = static_cast<int>(d.candidates.size());
  REQUIRE(count > 4);
  const auto at = [&](int a) {
    return std::find(d.candidates.begin(), d.candidates.end(), a) - d.candidates.begin();
  };
  // The phases: the others halve (count - 1, ..., 1) and each gets about rollouts / phases.
  std::vector<int> sizes;
  for (int k = count - 1;; k = (k + 1) / 2) {
    sizes.push_back(k);
    if (k == 1) break;
  }
  const int phases = static_cast<int>(sizes.size());
  int rounds = 0, rollouts = 0;
  for (int size : sizes) {
    const int r = std::max(1, config.rollouts / phases / (size + 1));
    rounds += r;
    rollouts += r * (size + 1);
  }
  CHECK(d.rounds == rounds);
  CHECK(d.rollouts == rollouts);
  CHECK(d.rollouts <= config.rollouts);
  // b and the winner play every round; the others fewer, each as many as the phases it lived.
  CHECK(d.played[at(d.blueprint)] == rounds);
  CHECK(d.played[at(action)] == rounds);
  int64_t played = 0;
  for (int k = 0; k < count; ++k) {
    played += d.played[k];
    if (d.candidates[k] != action && d.candidates[k] != d.blueprint) CHECK(d.played[k] < rounds);
  }
  CHECK(played == d.rollouts);
  CHECK(d.mean[at(action)] == Approx(0.01));
  CHECK(d.mean[at(d.blueprint)] == Approx(-0.09));
  // More rounds for the last two than uniform gives every candidate at the same budget.
  config.allocation = "uniform";
  auto uniform = Make(game, blueprint, config);
  engine::Rng rng2(5);
  CHECK(uniform->ActOnState(game, s, rng2) == action);
  CHECK(uniform->last_decision().rounds == config.rollouts / count);
  CHECK(uniform->last_decision().rounds < rounds);
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
  config.allocation = "racing";
  auto player = Make(game, blueprint, config);
  engine::Rng rng(5);
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
  engine::Rng rng2(5);
  CHECK(own->ActOnState(game, s, rng2) == play);
  REQUIRE(own->last_decision().blueprint == play);
  CHECK(own->last_decision().rollouts == static_cast<int64_t>(phase) * count);
  CHECK(own->stats().deviations == 0);

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
    engine::Rng rng3(seed);
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

TEST_CASE("Search with one candidate returns it without rollouts", "[search]") {
  const LostCities game(ShortRules());
  // After a discard to the only pile, the draw decision has one legal action: the deck.
  State s = game.DealFromSeed(3);
  game.ApplyUnchecked(s, game.EncodeMove(engine::Move::Discard(0)));
  REQUIRE(game.LegalMask(s) == (1u << game.deck_action()));
  Blueprint model;
  model.play.source = play::PlayPolicy::Source::kCurrent;
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
  play::PolicyBot greedy(&direct, model.play, game);
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
  model.play.source = play::PlayPolicy::Source::kCurrent;
  SearchConfig config;
  config.rollouts = 40;
  config.threshold = 0.5;
  config.allocation = GENERATE(as<std::string>{}, "uniform", "halving", "racing");
  config.turn_draws = GENERATE(0, 2);
  INFO("allocation " << config.allocation << ", turn draws " << config.turn_draws);
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
      CHECK(decisions[k][i].draws == decisions[0][i].draws);
      CHECK(decisions[k][i].mean == decisions[0][i].mean);
      CHECK(decisions[k][i].stderr_d == decisions[0][i].stderr_d);
      CHECK(decisions[k][i].chosen == decisions[0][i].chosen);
      CHECK(decisions[k][i].rollouts == decisions[0][i].rollouts);
      CHECK(decisions[k][i].played == decisions[0][i].played);
    }
  }
  CHECK(decisions[0][0].rollouts > 0);
}

// Player 0's payoff / 100 from `s` after `action` and then `draw` (-1: none), `bot` playing both
// seats to the end: a rollout of a deterministic bot from the true state, computed here.
double PlayedOut(const LostCities& game, State s, int action, int draw, const std::string& bot) {
  auto policy = engine::MakeBot(bot);
  REQUIRE(policy.ok());
  engine::Rng rng(0);
  game.ApplyUnchecked(s, action);
  if (draw >= 0) game.ApplyUnchecked(s, draw);
  while (!LostCities::IsTerminal(s)) game.ApplyUnchecked(s, (*policy)->ActOnState(game, s, rng));
  return LostCities::Payoff(s, 0) / LostCities::DefaultPayoffScale();
}

TEST_CASE("Search's turn draws value a card action by its best draw", "[search]") {
  const LostCities game;
  // A scripted blueprint (every legal action, every legal draw after it), deterministic rollouts
  // of the balanced heuristic, and every round the true state (oracle hand and deck): each
  // candidate's mean is exactly one played-out game, computed here independently.
  Blueprint bot;
  bot.bot = "heuristic-cautious";
  SearchConfig config;
  config.rollout_policy = "heuristic-balanced";
  config.oracle_hand = config.oracle_deck = true;
  config.rollouts = 2000;
  int changed = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    // A mid-game card decision of player 0: both seats play the balanced heuristic to it.
    State s = game.DealFromSeed(seed);
    auto prefix = engine::MakeBot("heuristic-balanced");
    REQUIRE(prefix.ok());
    engine::Rng rng_prefix(seed);
    while (s.decisions < 20 + 2 * seed || s.player != 0) {
      game.ApplyUnchecked(s, (*prefix)->ActOnState(game, s, rng_prefix));
    }
    REQUIRE(s.phase == engine::Phase::kCard);
    INFO("seed " << seed);
    config.turn_draws = 2;  // a bot blueprint gives no ranking: every legal draw
    auto turn = Make(game, bot, config);
    engine::Rng rng(seed);
    const int chosen = turn->ActOnState(game, s, rng);
    const SearchDecision& d = turn->last_decision();
    CHECK(turn->stats().turn_searched == 1);
    CHECK(turn->stats().card_searched == 1);
    // The pairs: every legal card action with every legal draw after it, ascending.
    std::vector<std::pair<int, int>> expected;
    for (int a : game.LegalActions(s)) {
      State after = s;
      game.ApplyUnchecked(after, a);
      for (int draw : game.LegalActions(after)) expected.emplace_back(a, draw);
    }
    REQUIRE(d.candidates.size() == expected.size());
    REQUIRE(d.draws.size() == expected.size());
    // Each pair's mean is its game played out; each card action's value is its best pair's.
    std::vector<double> best_of(game.num_actions(), -1e9);
    for (size_t k = 0; k < expected.size(); ++k) {
      CHECK(std::pair(d.candidates[k], d.draws[k]) == expected[k]);
      const double v =
          PlayedOut(game, s, expected[k].first, expected[k].second, config.rollout_policy);
      CHECK(d.mean[k] == Approx(v).margin(1e-9));
      best_of[expected[k].first] = std::max(best_of[expected[k].first], v);
    }
    // The choice: the best pair's card action when it beats b's best pair (no noise here).
    int want = d.blueprint;
    for (int a : game.LegalActions(s)) {
      if (best_of[a] > best_of[want] + 1e-6) want = a;
    }
    CHECK(chosen == want);
    // Without turn draws the rollout policy draws: each card action is one game played out.
    config.turn_draws = 0;
    auto plain = Make(game, bot, config);
    engine::Rng rng2(seed);
    const int plain_choice = plain->ActOnState(game, s, rng2);
    CHECK(plain->last_decision().draws ==
          std::vector<int>(plain->last_decision().candidates.size(), -1));
    CHECK(plain->stats().turn_searched == 0);
    double plain_best = -1e9;
    for (int a : game.LegalActions(s)) {
      plain_best = std::max(plain_best, PlayedOut(game, s, a, -1, config.rollout_policy));
    }
    CHECK(PlayedOut(game, s, plain_choice, -1, config.rollout_policy) == Approx(plain_best));
    changed += plain_choice != chosen;
  }
  // On some of these positions the draw after the card action changes which card is best.
  CHECK(changed > 0);
}

TEST_CASE("Search's turn draws take the model's most probable draws, at card decisions only",
          "[search]") {
  const LostCities game(ShortRules());
  Blueprint model;
  model.play.source = play::PlayPolicy::Source::kCurrent;
  SearchConfig config;
  config.rollouts = 60;
  config.turn_draws = 2;
  auto evaluator = Pseudo(game)(0);
  traversal::PolicyClient direct = traversal::PolicyClient::Direct(evaluator.get());
  play::PolicyBot blueprint(&direct, model.play, game);
  int pairs_seen = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    State s = game.DealFromSeed(seed);
    engine::Rng prefix(seed);
    for (int j = 0; j < 30 + static_cast<int>(seed); ++j) {  // card decisions at even seeds
      const std::vector<int> legal = game.LegalActions(s);
      game.ApplyUnchecked(s, legal[prefix.Uniform(static_cast<uint32_t>(legal.size()))]);
    }
    INFO("seed " << seed);
    auto player = Make(game, model, config, Pseudo(game));
    engine::Rng rng(seed);
    player->ActOnState(game, s, rng);
    const SearchDecision& d = player->last_decision();
    if (s.phase == engine::Phase::kDraw) {
      CHECK(d.draws == std::vector<int>(d.candidates.size(), -1));
      CHECK(player->stats().turn_searched == 0);
      continue;
    }
    CHECK(player->stats().turn_searched == 1);
    // Every card candidate with the blueprint's min(2, legal) most probable draws after it.
    std::vector<int> cards = d.candidates;
    cards.erase(std::unique(cards.begin(), cards.end()), cards.end());
    CHECK(cards.size() <= 5);  // the 4 most probable and b
    size_t expected = 0;
    for (int c : cards) {
      State after = s;
      game.ApplyUnchecked(after, c);
      engine::Rng unused(0);
      blueprint.ActOnState(game, after, unused);
      std::vector<int> draws = game.LegalActions(after);
      std::stable_sort(draws.begin(), draws.end(), [&](int x, int y) {
        return blueprint.probabilities()[x] > blueprint.probabilities()[y];
      });
      draws.resize(std::min<size_t>(draws.size(), 2));
      std::sort(draws.begin(), draws.end());
      std::vector<int> got;
      for (size_t k = 0; k < d.candidates.size(); ++k) {
        if (d.candidates[k] == c) got.push_back(d.draws[k]);
      }
      CHECK(got == draws);
      expected += draws.size();
    }
    CHECK(d.candidates.size() == expected);
    CHECK(d.rollouts == static_cast<int64_t>(d.rounds) * static_cast<int64_t>(expected));
    pairs_seen += static_cast<int>(expected);
  }
  CHECK(pairs_seen > 0);
  config.turn_draws = -1;
  CHECK_THAT(std::string(config.Validate().message()), Catch::Contains("--turn-draws"));
  config.turn_draws = 8;
  CHECK_THAT(std::string(config.Validate().message()), Catch::Contains("--turn-draws"));
}

TEST_CASE("Search rolls out with the play policy its rollout policy names", "[search]") {
  const LostCities game(ShortRules());
  State s = game.DealFromSeed(6);
  auto decide = [&](play::PlayPolicy play, const std::string& rollout) {
    Blueprint model;
    model.play = play;
    SearchConfig config;
    config.rollouts = 30;
    config.rollout_policy = rollout;
    auto player = Make(game, model, config, Pseudo(game));
    engine::Rng rng(4);
    player->ActOnState(game, s, rng);
    return player->last_decision();
  };
  const play::PlayPolicy current{play::PlayPolicy::Source::kCurrent, false};
  const play::PlayPolicy greedy{play::PlayPolicy::Source::kCurrent, true};
  // "current-greedy" rollouts under a sampled blueprint are the greedy blueprint's own rollouts
  // ("model": the blueprint's play policy): the same means; the sampled ones differ.
  const SearchDecision by_name = decide(current, "current-greedy");
  const SearchDecision own = decide(greedy, "model");
  CHECK(by_name.mean == own.mean);
  CHECK(decide(current, "current").mean == decide(current, "").mean);
  CHECK(decide(current, "model").mean != by_name.mean);
  SearchConfig c;
  c.rollout_policy = "average-greedy";
  CHECK(c.rollouts_name_model());
  CHECK(c.Validate().ok());
}

TEST_CASE("Search rollouts play each side with its own policy", "[search]") {
  const LostCities game;
  const State s = game.DealFromSeed(11);
  Blueprint blueprint;
  blueprint.bot = "heuristic-balanced";
  auto mean = [&](const std::string& own, const std::string& opponent) {
    SearchConfig config;
    config.rollouts = 400;
    config.rollout_policy = own;
    config.opponent_rollout_policy = opponent;
    auto player = Make(game, blueprint, config);
    engine::Rng rng(2);
    player->ActOnState(game, s, rng);
    const SearchDecision& d = player->last_decision();
    double sum = 0;
    for (double m : d.mean) sum += m;
    return sum / static_cast<double>(d.mean.size());
  };
  // The heuristic beats random by about 100 points a game: the sign says who played which seat.
  CHECK(mean("heuristic-balanced", "random") > 0.5);
  CHECK(mean("random", "heuristic-balanced") < -0.5);
  // An empty opponent policy is the rollout policy's.
  CHECK(mean("random", "") == mean("random", "random"));
  SearchConfig c;
  c.opponent_rollout_policy = "nobody";
  CHECK_THAT(std::string(c.Validate().message()),
             Catch::Contains("--opponent-rollout-policy: unknown policy 'nobody'"));
}

// Counts the rows asked of a pseudo network.
// The stand-in network with seed `seed`, counting its rows and, given `networks`, recording
// which networks it was asked for (bit n: network n).
class CountingPseudo final : public traversal::Evaluator {
 public:
  CountingPseudo(const LostCities& game, uint64_t seed, std::atomic<int64_t>& rows,
                 std::atomic<uint32_t>* networks = nullptr)
      : inner_(game.EncodingSize(), game.num_actions(), seed), rows_(rows), networks_(networks) {}
  void Evaluate(std::span<const traversal::PolicyRequest> requests) override {
    rows_ += static_cast<int64_t>(requests.size());
    if (networks_ != nullptr) {
      for (const traversal::PolicyRequest& r : requests) *networks_ |= 1u << r.network;
    }
    inner_.Evaluate(requests);
  }

 private:
  traversal::PseudoNetworkEvaluator inner_;
  std::atomic<int64_t>& rows_;
  std::atomic<uint32_t>* networks_;
};

// A model blueprint playing its current policy.
Blueprint CurrentModel() {
  Blueprint model;
  model.play.source = play::PlayPolicy::Source::kCurrent;
  return model;
}

// 40 rollouts on 2 workers over every legal action: the candidates do not depend on whose
// ranking.
SearchConfig EveryCandidate() {
  SearchConfig config;
  config.rollouts = 40;
  config.workers = 2;
  config.candidates = 0;
  return config;
}

// One decision at `s` (Rng 4) of a search built with these evaluators; its figures.
SearchDecision DecideOnce(const LostCities& game, const Blueprint& blueprint,
                          const SearchConfig& config, const State& s, const EvaluatorFactory& own,
                          const EvaluatorFactory& rollouts,
                          const EvaluatorFactory& opponents = {}) {
  auto player = SearchPlayer::Create(game, blueprint, config, own, rollouts, opponents);
  INFO(player.status().message());
  REQUIRE(player.ok());
  engine::Rng rng(4);
  (*player)->ActOnState(game, s, rng);
  return (*player)->last_decision();
}

TEST_CASE("Search's rollouts ask the rollout model, its own choice the player's", "[search]") {
  const LostCities game(ShortRules());
  const State s = game.DealFromSeed(6);
  const Blueprint model = CurrentModel();
  const SearchConfig config = EveryCandidate();
  std::atomic<int64_t> own_rows{0}, rollout_rows{0};
  auto counting = [&game](uint64_t seed, std::atomic<int64_t>& rows) -> EvaluatorFactory {
    return [&game, seed, &rows](int) -> std::unique_ptr<traversal::Evaluator> {
      return std::make_unique<CountingPseudo>(game, seed, rows);
    };
  };
  auto decide = [&](const SearchConfig& c, const EvaluatorFactory& own,
                    const EvaluatorFactory& rollouts) {
    return DecideOnce(game, model, c, s, own, rollouts);
  };
  SearchConfig separate = config;
  separate.rollout_model = "student.pt";
  const SearchDecision both = decide(separate, counting(7, own_rows), counting(11, rollout_rows));
  // The player's model answers its own choice alone; the rollouts are the rollout model's, so
  // their means are those of a player whose model is the rollout model, and its choice the
  // player's own model's.
  CHECK(own_rows == 1);
  CHECK(rollout_rows > 40 * 10);
  const SearchDecision rollout_only = decide(config, counting(11, rollout_rows), {});
  const SearchDecision own_only = decide(config, counting(7, own_rows), {});
  CHECK(both.mean == rollout_only.mean);
  CHECK(both.mean != own_only.mean);
  CHECK(both.blueprint == own_only.blueprint);
  // A rollout model with no model side in the rollouts, or without its evaluators, is refused.
  SearchConfig bots = separate;
  bots.rollout_policy = "heuristic-balanced";
  auto refused = SearchPlayer::Create(game, model, bots, Pseudo(game), Pseudo(game));
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(std::string(refused.status().message()),
             Catch::Contains("--rollout-model: no side of the rollouts plays the model"));
  CHECK_FALSE(SearchPlayer::Create(game, model, separate, Pseudo(game), {}).ok());
  CHECK_FALSE(SearchPlayer::Create(game, model, config, Pseudo(game), Pseudo(game)).ok());
}

TEST_CASE("Search's opponent rollout model plays the opponent's side alone", "[search]") {
  const LostCities game(ShortRules());
  const State s = game.DealFromSeed(6);
  const int opponent = 1 - LostCities::CurrentPlayer(s);
  const Blueprint model = CurrentModel();
  const SearchConfig config = EveryCandidate();
  std::atomic<int64_t> own_rows{0}, rollout_rows{0}, opponent_rows{0}, scratch{0};
  std::atomic<uint32_t> rollout_networks{0}, opponent_networks{0}, unused{0};
  auto recording = [&game](uint64_t seed, std::atomic<int64_t>& rows,
                           std::atomic<uint32_t>& networks) -> EvaluatorFactory {
    return [&game, seed, &rows, &networks](int) -> std::unique_ptr<traversal::Evaluator> {
      return std::make_unique<CountingPseudo>(game, seed, rows, &networks);
    };
  };
  auto decide = [&](const SearchConfig& c, const EvaluatorFactory& own,
                    const EvaluatorFactory& rollouts, const EvaluatorFactory& opponents) {
    return DecideOnce(game, model, c, s, own, rollouts, opponents);
  };
  SearchConfig sides = config;
  sides.rollout_model = "student.pt";
  sides.opponent_rollout_model = "opponent.pt";
  const SearchDecision split =
      decide(sides, recording(7, own_rows, unused), recording(11, rollout_rows, rollout_networks),
             recording(13, opponent_rows, opponent_networks));
  // The player's model answers its own choice alone; the searching side's rollout moves ask the
  // rollout model (its seat's advantage network), the opponent's the opponent model (the other
  // seat's), about as many rows each.
  CHECK(own_rows == 1);
  CHECK(rollout_rows > 40 * 5);
  CHECK(opponent_rows > 40 * 5);
  CHECK(rollout_networks == 1u << traversal::AdvantageNetwork(1 - opponent));
  CHECK(opponent_networks == 1u << traversal::AdvantageNetwork(opponent));
  CHECK(split.blueprint == decide(config, recording(7, scratch, unused), {}, {}).blueprint);
  // With the same networks on both sides it decides as one rollout model does; with another
  // network for the opponent's side the rollouts' means change.
  SearchConfig one = config;
  one.rollout_model = "student.pt";
  const SearchDecision same =
      decide(sides, recording(7, scratch, unused), recording(11, scratch, unused),
             recording(11, scratch, unused));
  const SearchDecision single =
      decide(one, recording(7, scratch, unused), recording(11, scratch, unused), {});
  CHECK(same.mean == single.mean);
  CHECK(same.chosen == single.chosen);
  CHECK(split.mean != single.mean);
  // Without --rollout-model the searching side asks the player's model: a bot for that side and
  // the opponent model for the other give the means of a player whose model is the opponent's.
  SearchConfig bot_side = config;
  bot_side.rollout_policy = "heuristic-balanced";
  bot_side.opponent_rollout_policy = "current";
  SearchConfig bot_side_opponent = bot_side;
  bot_side_opponent.opponent_rollout_model = "opponent.pt";
  own_rows = 0;
  const SearchDecision bot_mine =
      decide(bot_side_opponent, recording(7, own_rows, unused), {}, recording(13, scratch, unused));
  CHECK(own_rows == 1);
  CHECK(bot_mine.mean == decide(bot_side, recording(13, scratch, unused), {}, {}).mean);
  // An opponent model with no model on the opponent's side, or without its evaluators (or
  // evaluators without it), is refused.
  SearchConfig bots = sides;
  bots.opponent_rollout_policy = "heuristic-balanced";
  auto refused = SearchPlayer::Create(game, model, bots, Pseudo(game), Pseudo(game), Pseudo(game));
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(std::string(refused.status().message()),
             Catch::Contains("--opponent-rollout-model: no opponent side of the rollouts plays "
                             "the model"));
  CHECK_FALSE(SearchPlayer::Create(game, model, sides, Pseudo(game), Pseudo(game), {}).ok());
  CHECK_FALSE(
      SearchPlayer::Create(game, model, one, Pseudo(game), Pseudo(game), Pseudo(game)).ok());
}

TEST_CASE("Search matches are the same on any number of threads", "[search]") {
  const LostCities game(ShortRules());
  SearchConfig config;
  config.rollouts = 6;
  Blueprint bot;
  bot.bot = "heuristic-balanced";
  Blueprint model;
  model.play.source = play::PlayPolicy::Source::kCurrent;
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
  // Halving stops at the budget too, in whichever phase it falls.
  config.allocation = "halving";
  auto halving = Make(game, bot, config);
  halving->ActOnState(game, s, rng);
  const SearchDecision& h = halving->last_decision();
  CHECK(h.seconds < 5.0);
  CHECK(h.rollouts < config.rollouts);
  CHECK(h.rounds * 2 <= h.rollouts);
}

// The stand-in network, except that the value network answers `value` at every legal action.
class ConstantValueEvaluator : public traversal::Evaluator {
 public:
  ConstantValueEvaluator(const LostCities& game, float value)
      : inner_(game.EncodingSize(), game.num_actions(), 7), value_(value) {}
  void Evaluate(std::span<const traversal::PolicyRequest> requests) override {
    for (const traversal::PolicyRequest& r : requests) {
      if (r.network == traversal::kValueNetwork) {
        ++value_rows;
        for (size_t a = 0; a < r.output.size(); ++a) {
          r.output[a] = (r.legal_mask >> a) & 1 ? value_ : 0.0f;
        }
      } else {
        inner_.Evaluate(std::span<const traversal::PolicyRequest>(&r, 1));
      }
    }
  }
  static inline std::atomic<int64_t> value_rows{0};

 private:
  traversal::PseudoNetworkEvaluator inner_;
  float value_;
};

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
      engine::Rng rng(3);
      player->ActOnState(game, start, rng);
      const SearchDecision& d = player->last_decision();
      REQUIRE(d.rollouts > 0);
      // Who is to move after the candidate and `depth` more decisions (any of them: the turn's
      // order does not depend on the cards) is who the value is for: sum_b sigma(b) 0.37, x2.
      State t = start;
      for (int k = 0; k <= depth; ++k) game.ApplyUnchecked(t, game.LegalActions(t)[0]);
      const double expected = (LostCities::CurrentPlayer(t) == mover ? 1 : -1) * 0.74;
      for (size_t k = 0; k < d.candidates.size(); ++k) CHECK(d.mean[k] == Approx(expected));
      CHECK(player->stats().cut == d.rollouts);
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
  engine::Rng rng1(8), rng2(8);
  full->ActOnState(classic, last, rng1);
  deep->ActOnState(classic, last, rng2);
  CHECK(deep->stats().cut == 0);
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
  for (double g : {-0.01, 1.5, std::nan("")}) {
    c = {};
    c.min_gain = g;
    CHECK_THAT(message(c), Catch::Contains("--min-gain must be in [0, 1]"));
  }
  c = {};
  c.rollout_policy = "oracle";
  CHECK_THAT(message(c), Catch::Contains("--rollout-policy: unknown policy 'oracle'"));
  c = {};
  c.width = 0;
  CHECK_THAT(message(c), Catch::Contains("--search-width"));
  c = {};
  c.workers = 0;
  CHECK_THAT(message(c), Catch::Contains("--workers"));
  c = {};
  c.rollout_depth = -1;
  CHECK_THAT(message(c), Catch::Contains("--rollout-depth must be in"));
  c = {};
  c.rollout_depth = 8;
  c.objective = "win";
  CHECK_THAT(message(c), Catch::Contains("--rollout-depth needs --objective score"));
  c = {};
  c.allocation = "best-first";
  CHECK_THAT(message(c), Catch::Contains("--allocation must be uniform, halving or racing"));
  for (const double z : {0.0, -1.0, std::numeric_limits<double>::infinity()}) {
    c = {};
    c.drop_threshold = z;
    CHECK_THAT(message(c), Catch::Contains("--drop-threshold must be a finite number > 0"));
  }
  // The model plays, but no evaluators were given.
  const LostCities game;
  CHECK_FALSE(SearchPlayer::Create(game, Blueprint{}, SearchConfig{}, {}).ok());
  Blueprint unknown;
  unknown.bot = "nobody";
  CHECK_FALSE(SearchPlayer::Create(game, unknown, SearchConfig{}, {}).ok());
}

// A game from deal `seed` after `decisions` random moves (with `discards`, only discards and
// deck draws), each told to `player` for both seats (Bot::Observe), as a match tells it.
State ObservedPrefix(const LostCities& game, uint64_t seed, int decisions, SearchPlayer& player,
                     bool discards = false) {
  State s = game.DealFromSeed(seed);
  engine::Rng rng(seed + 77);
  for (int j = 0; j < decisions; ++j) {
    std::vector<int> legal = game.LegalActions(s);
    if (discards) {
      std::erase_if(legal, [&](int a) {
        const engine::Move m = game.DecodeAction(a);
        return m.kind == engine::Move::Kind::kPlay || m.kind == engine::Move::Kind::kDrawPile;
      });
    }
    const int a = legal[rng.Uniform(static_cast<uint32_t>(legal.size()))];
    State next = s;
    game.ApplyUnchecked(next, a);
    if (LostCities::IsTerminal(next)) break;
    for (int seat = 0; seat < 2; ++seat) player.Observe(game, s, a, seat);
    s = next;
  }
  return s;
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
    engine::Rng rng(5);
    player->ActOnState(game, s, rng);
    CHECK(player->last_decision().belief_ess == Approx(64.0));
    CHECK(player->stats().believed == 1);
    CHECK(player->stats().belief_worlds == 64);
  }
  // A model whose moves depend on the hand tells the worlds apart; the belief's rows are asked
  // through the batcher (one per opponent decision and world, on top of the rollouts').
  {
    auto player = Make(game, model, config, Pseudo(game));
    const State s = ObservedPrefix(game, 3, 40, *player);
    engine::Rng rng(5);
    player->ActOnState(game, s, rng);
    const double ess = player->last_decision().belief_ess;
    CHECK(ess >= 1.0);
    CHECK(ess < 63.0);
    SearchConfig plain = config;
    plain.belief = 0;
    auto uniform_player = Make(game, model, plain, Pseudo(game));
    engine::Rng rng2(5);
    uniform_player->ActOnState(game, s, rng2);
    CHECK(player->stats().policy_calls >= uniform_player->stats().policy_calls + 64 * 20 - 64);
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
    engine::Rng rng(5);
    player->ActOnState(game, t, rng);
    CHECK(player->stats().belief_missing == 1);
    CHECK(player->stats().believed == 0);
    CHECK(player->last_decision().belief_ess == 0);
  }
}

// A model player with `config` decides on three observed positions at three shapes (workers,
// width); the decisions must agree with the first shape's (means, choice, and `same`'s fields).
// `check` runs on each player after its decision.
std::vector<std::vector<SearchDecision>> DecideAtShapes(
    const LostCities& game, SearchConfig config,
    const std::function<void(const SearchPlayer&, uint64_t)>& check,
    const std::function<void(const SearchDecision&, const SearchDecision&)>& same) {
  Blueprint model;
  model.play.source = play::PlayPolicy::Source::kCurrent;
  const std::vector<std::pair<int, int>> shapes = {{1, 1}, {2, 8}, {3, 64}};
  std::vector<std::vector<SearchDecision>> decisions(shapes.size());
  for (size_t k = 0; k < shapes.size(); ++k) {
    config.workers = shapes[k].first;
    config.width = shapes[k].second;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      auto player = Make(game, model, config, Pseudo(game));
      const State s = ObservedPrefix(game, seed, 20 + 14 * static_cast<int>(seed), *player);
      engine::Rng rng(seed * 31);
      player->ActOnState(game, s, rng);
      check(*player, seed);
      decisions[k].push_back(player->last_decision());
    }
  }
  for (size_t k = 1; k < shapes.size(); ++k) {
    INFO("workers " << shapes[k].first << ", width " << shapes[k].second);
    for (size_t i = 0; i < decisions[0].size(); ++i) {
      CHECK(decisions[k][i].mean == decisions[0][i].mean);
      same(decisions[k][i], decisions[0][i]);
      CHECK(decisions[k][i].chosen == decisions[0][i].chosen);
    }
  }
  return decisions;
}

TEST_CASE("Search's belief decides the same for any widths and workers", "[search]") {
  const LostCities game(ShortRules());
  SearchConfig config;
  config.rollouts = 30;
  config.belief = 24;
  config.belief_power = 0.5;
  config.threshold = 0.5;
  DecideAtShapes(
      game, config,
      [](const SearchPlayer& player, uint64_t seed) {
        INFO("seed " << seed << ", missing " << player.stats().belief_missing << ", searched "
                     << player.stats().searched);
        CHECK(player.stats().believed == 1);
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
  CHECK_THAT(message(c), Catch::Contains("--belief-power must be in (0, 1]"));
  c.belief_power = 1.5;
  CHECK_THAT(message(c), Catch::Contains("--belief-power"));
  c = {};
  c.belief = 10;
  c.worlds = 4;
  CHECK_THAT(message(c), Catch::Contains("--belief and --worlds cannot be combined"));
  // A bot blueprint with bot rollouts has no model to weigh the moves with.
  const LostCities game;
  Blueprint bot;
  bot.bot = "heuristic-balanced";
  c = {};
  c.belief = 10;
  auto player = SearchPlayer::Create(game, bot, c, {});
  REQUIRE_FALSE(player.ok());
  CHECK_THAT(std::string(player.status().message()), Catch::Contains("--belief needs a model"));
  // The belief under the opponent's (bot) policies needs none.
  c.belief_policy = "opponent";
  CHECK(SearchPlayer::Create(game, bot, c, {}).ok());
  c.belief_policy = "bayes";
  CHECK_THAT(message(c),
             Catch::Contains("--belief-policy must be blueprint or opponent (got 'bayes')"));
  c.belief_policy = "opponent";
  c.belief = 0;
  CHECK_THAT(message(c), Catch::Contains("--belief-policy opponent needs --belief"));
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
    engine::Rng rng(3);
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

// A game's first `decisions` decisions (or fewer, ending with player 0 to move): player 0 plays
// random legal moves, player 1 the bot `opponent`; the searching player is told every one.
State BotPrefix(const LostCities& game, uint64_t seed, int decisions, SearchPlayer& player,
                const std::string& opponent) {
  auto bot = engine::MakeBot(opponent);
  REQUIRE(bot.ok());
  State s = game.DealFromSeed(seed);
  engine::Rng rng(seed + 91);
  while (static_cast<int>(s.decisions) < decisions || s.player != 0) {
    const std::vector<int> legal = game.LegalActions(s);
    const int a = s.player == 1 ? (*bot)->ActOnState(game, s, rng)
                                : legal[rng.Uniform(static_cast<uint32_t>(legal.size()))];
    State next = s;
    game.ApplyUnchecked(next, a);
    if (LostCities::IsTerminal(next)) break;
    for (int seat = 0; seat < 2; ++seat) player.Observe(game, s, a, seat);
    s = next;
  }
  REQUIRE(s.player == 0);
  return s;
}

// Deal 5 after two turns (four decisions) that no searching player was told of.
State UnseenTurns(const LostCities& game) {
  State u = game.DealFromSeed(5);
  for (int turn = 0; turn < 2; ++turn) {
    game.ApplyUnchecked(u, game.LegalActions(u)[0]);
    game.ApplyUnchecked(u, game.deck_action());
  }
  return u;
}

TEST_CASE("Search infers the opponent's policy from its moves", "[search]") {
  const LostCities game;
  Blueprint blueprint;
  blueprint.bot = "heuristic-balanced";
  SearchConfig config;
  config.rollouts = 24;
  config.opponent_rollout_policy = "heuristic-cautious,heuristic-aggressive,discard-only";
  config.opponent_worlds = 64;
  const std::vector<std::string> names = config.opponent_policies();
  REQUIRE(names.size() == 3);
  CHECK(config.infers_opponent());
  CHECK_FALSE(config.rollouts_name_model());
  // After 60 decisions (30 of the opponent's), the policy that played them is the most probable
  // of the three, over the one that differs from it only in its margins too.
  for (size_t truth = 0; truth < names.size(); ++truth) {
    for (uint64_t seed : {3, 4}) {
      INFO(names[truth] << ", seed " << seed);
      auto player = Make(game, blueprint, config);
      const State s = BotPrefix(game, seed, 60, *player, names[truth]);
      engine::Rng rng(seed);
      player->ActOnState(game, s, rng);
      const std::vector<double>& posterior = player->last_decision().opponent_posterior;
      REQUIRE(posterior.size() == names.size());
      double total = 0;
      for (double p : posterior) total += p;
      CHECK(total == Approx(1.0));
      for (size_t other = 0; other < names.size(); ++other) {
        if (other != truth) CHECK(posterior[truth] > 2 * posterior[other]);
      }
      CHECK(player->stats().inferred == 1);
      CHECK(player->stats().mean_opponent_posterior(truth) == Approx(posterior[truth]));
    }
  }
  // A posterior of 1 plays every round with that policy: the same rollouts as naming it alone
  // (the same worlds and streams).
  {
    auto player = Make(game, blueprint, config);
    const State s = BotPrefix(game, 5, 50, *player, "discard-only");
    engine::Rng rng(8);
    player->ActOnState(game, s, rng);
    REQUIRE(player->last_decision().opponent_posterior[2] > 1 - 1e-9);
    SearchConfig alone = config;
    alone.opponent_rollout_policy = "discard-only";
    auto single = Make(game, blueprint, alone);
    engine::Rng rng2(8);
    single->ActOnState(game, s, rng2);
    CHECK(player->last_decision().mean == single->last_decision().mean);
    CHECK(player->last_decision().opponent_posterior.size() == 3);
    CHECK(single->last_decision().opponent_posterior.empty());
    // Without the game's moves the prior is used, a third each, and no decision counts as
    // inferred.
    auto mixed = Make(game, blueprint, config);
    const State u = UnseenTurns(game);  // no moves seen: the prior, a third each
    engine::Rng rng3(8);
    mixed->ActOnState(game, u, rng3);
    for (double p : mixed->last_decision().opponent_posterior) CHECK(p == Approx(1.0 / 3));
    CHECK(mixed->stats().inferred == 0);
  }
}

TEST_CASE("Search told a game's moves through the agent protocol decides as in the game",
          "[search]") {
  // The agent's path (a protocol line with "moves", ParseObservation, TellHistory, a player that
  // sees one line at a time) against the match's (the true state, every move observed), for
  // opponent inference and the belief under the opponent's policies, the searcher at either seat.
  // One wager a color: the protocol names a wager by its color alone, so with more it may give
  // one the id of another of its color, and the worlds with a past are then the match's in
  // distribution but not draw for draw (the agent protocol's tests check the history itself).
  engine::Rules rules = ShortRules();
  rules.wagers = 1;
  const LostCities game(rules);
  Blueprint blueprint;
  blueprint.bot = "heuristic-balanced";
  SearchConfig inference;
  inference.rollouts = 16;
  inference.opponent_rollout_policy = "heuristic-cautious,heuristic-aggressive,random";
  inference.opponent_worlds = 16;
  inference.threshold = 0.5;
  SearchConfig belief = inference;
  belief.belief = 16;
  belief.belief_policy = "opponent";
  for (const SearchConfig* config : {&inference, &belief}) {
    for (int seat = 0; seat < 2; ++seat) {
      INFO("belief " << config->belief << ", the searcher at seat " << seat);
      auto in_game = Make(game, blueprint, *config);
      auto agent = Make(game, blueprint, *config);
      auto opponent = engine::MakeBot("heuristic-cautious");
      REQUIRE(opponent.ok());
      State s = game.DealFromSeed(11 + seat);
      std::vector<engine::SeenMove> seen;  // the moves as the searcher saw them
      engine::Rng rng(seat);
      int compared = 0;
      while (!LostCities::IsTerminal(s) && compared < 24) {
        int a = 0;
        if (s.player == seat) {
          engine::Rng parse(compared);
          absl::StatusOr<engine::Observation> obs =
              engine::ParseObservation(engine::ObservationToProtocol(game, s, seen), parse);
          REQUIRE(obs.ok());
          REQUIRE(obs->state.player == seat);
          engine::TellHistory(game, *obs, *agent);
          engine::Rng for_agent = rng;
          const int told = agent->ActOnState(game, obs->state, for_agent);
          a = in_game->ActOnState(game, s, rng);
          CHECK(told == a);
          const SearchDecision& d = in_game->last_decision();
          const SearchDecision& t = agent->last_decision();
          CHECK(t.mean == d.mean);
          CHECK(t.opponent_posterior == d.opponent_posterior);
          CHECK(t.belief_ess == d.belief_ess);
          ++compared;
        } else {
          a = (*opponent)->ActOnState(game, s, rng);
        }
        in_game->Observe(game, s, a, seat);
        seen.push_back(engine::SeeMove(game, s, a, seat));
        game.ApplyUnchecked(s, a);
      }
      CHECK(compared == 24);
      // Every decision after the first was inferred, on the same evidence.
      CHECK(agent->stats().inferred == in_game->stats().inferred);
      CHECK(agent->stats().inferred > 12);
      if (config->belief > 0) CHECK(agent->stats().belief_missing == 0);
      // The next line without its moves: the agent forgets the game, and infers nothing.
      while (!LostCities::IsTerminal(s) && s.player != seat) {
        game.ApplyUnchecked(s, (*opponent)->ActOnState(game, s, rng));
      }
      REQUIRE(!LostCities::IsTerminal(s));
      {
        engine::Rng parse(99);
        absl::StatusOr<engine::Observation> bare =
            engine::ParseObservation(engine::ObservationToProtocol(game, s), parse);
        REQUIRE(bare.ok());
        engine::TellHistory(game, *bare, *agent);
        const int64_t inferred = agent->stats().inferred;
        const int64_t missing = agent->stats().belief_missing;
        agent->ActOnState(game, bare->state, rng);
        CHECK(agent->stats().inferred == inferred);
        // Nor without "decisions": a position under way at decision 0 has a past, unknown.
        std::string line = engine::ObservationToProtocol(game, s);
        const size_t at = line.find(",\"decisions\":");
        REQUIRE(at != std::string::npos);
        line.erase(at, line.find_first_of(",}", at + 1) - at);
        absl::StatusOr<engine::Observation> undated = engine::ParseObservation(line, parse);
        REQUIRE(undated.ok());
        REQUIRE(undated->state.decisions == 0);
        engine::TellHistory(game, *undated, *agent);
        agent->ActOnState(game, undated->state, rng);
        CHECK(agent->stats().inferred == inferred);
        if (config->belief > 0) CHECK(agent->stats().belief_missing == missing + 2);
      }
    }
  }
}

TEST_CASE("Search's opponent inference decides the same for any widths and workers", "[search]") {
  const LostCities game(ShortRules());
  SearchConfig config;
  config.rollouts = 30;
  config.opponent_rollout_policy = "current,heuristic-balanced,random";
  config.opponent_worlds = 20;
  config.threshold = 0.5;
  const std::vector<std::vector<SearchDecision>> decisions = DecideAtShapes(
      game, config,
      [](const SearchPlayer& player, uint64_t) { CHECK(player.stats().inferred == 1); },
      [](const SearchDecision& d, const SearchDecision& first) {
        CHECK(d.opponent_posterior == first.opponent_posterior);
      });
  // The opponent's random moves are the likeliest under the random policy.
  CHECK(decisions[0][2].opponent_posterior[2] > 0.5);
}

TEST_CASE("JointBeliefPicks draws each round's world by its policy's likelihood", "[search]") {
  // Four worlds, two policies: policy 0 finds them 1 : 2 : 3 : 4 likely, policy 1 1 : 1 : 0 : 0.
  const double zero = -std::numeric_limits<double>::infinity();
  const std::vector<double> log_likelihood = {std::log(1.0), std::log(1.0),  //
                                              std::log(2.0), std::log(1.0),  //
                                              std::log(3.0), zero,           //
                                              std::log(4.0), zero};
  // 600 rounds, a third of them policy 1's.
  std::vector<int> of_round(600);
  for (size_t r = 0; r < of_round.size(); ++r) of_round[r] = r % 3 == 0 ? 1 : 0;
  const std::vector<double> posterior = {0.25, 0.75};
  for (const double power : {1.0, 0.5}) {
    INFO("power " << power);
    double ess = 0;
    const std::vector<int> picks =
        JointBeliefPicks(log_likelihood, 2, of_round, posterior, power, 17, ess);
    REQUIRE(picks.size() == of_round.size());
    double w0[4], total0 = 0;
    for (int i = 0; i < 4; ++i) total0 += w0[i] = std::pow(i + 1.0, power);
    double squares0 = 0;
    for (double w : w0) squares0 += (w / total0) * (w / total0);
    // Policy 1's weights are 1/2, 1/2 at any power: 2 effective worlds.
    CHECK(ess == Approx(0.25 / squares0 + 0.75 * 2.0));
    // Systematic resampling: world i gets its share of a policy's rounds within one.
    int count[2][4] = {};
    int first_half_zero[4] = {};  // the worlds of policy 0's first 200 rounds
    int seen0 = 0;
    for (size_t r = 0; r < picks.size(); ++r) {
      REQUIRE(picks[r] >= 0);
      REQUIRE(picks[r] < 4);
      ++count[of_round[r]][picks[r]];
      if (of_round[r] == 0 && seen0++ < 200) ++first_half_zero[picks[r]];
    }
    for (int i = 0; i < 4; ++i) {
      INFO("world " << i);
      CHECK(std::abs(count[0][i] - 400 * w0[i] / total0) <= 1.0);
      CHECK(std::abs(count[1][i] - (i < 2 ? 100.0 : 0.0)) <= 1.0);
      // Shuffled: the first half of policy 0's rounds holds every world, not the lowest indices.
      CHECK(first_half_zero[i] > 0);
    }
    // The same seed, the same picks; another seed, another order.
    double again = 0;
    CHECK(JointBeliefPicks(log_likelihood, 2, of_round, posterior, power, 17, again) == picks);
    CHECK(JointBeliefPicks(log_likelihood, 2, of_round, posterior, power, 18, again) != picks);
  }
}

TEST_CASE("Search's belief under the opponent's policies weighs the worlds by them", "[search]") {
  const LostCities game;
  Blueprint blueprint;
  blueprint.bot = "heuristic-balanced";
  SearchConfig config;
  config.rollouts = 24;
  config.opponent_rollout_policy = "heuristic-cautious,heuristic-aggressive,discard-only";
  config.belief = 64;
  config.belief_policy = "opponent";
  // Bots only: no model is needed. The inference reads the belief's worlds: the same posterior
  // as inference alone over as many worlds (the same stream), and the worlds are weighed.
  for (uint64_t seed : {3, 4}) {
    INFO("seed " << seed);
    auto player = Make(game, blueprint, config);
    const State s = BotPrefix(game, seed, 60, *player, "heuristic-cautious");
    engine::Rng rng(seed);
    player->ActOnState(game, s, rng);
    CHECK(player->stats().believed == 1);
    CHECK(player->stats().belief_missing == 0);
    CHECK(player->stats().belief_worlds == 64);
    CHECK(player->stats().inferred == 1);
    const double ess = player->last_decision().belief_ess;
    CHECK(ess >= 1.0);
    CHECK(ess < 32.0);  // a deterministic bot's moves tell the worlds apart
    SearchConfig inference = config;
    inference.belief = 0;
    inference.belief_policy = "blueprint";
    inference.opponent_worlds = 64;
    auto alone = Make(game, blueprint, inference);
    BotPrefix(game, seed, 60, *alone, "heuristic-cautious");
    engine::Rng rng2(seed);
    alone->ActOnState(game, s, rng2);
    CHECK(player->last_decision().opponent_posterior == alone->last_decision().opponent_posterior);
    CHECK(player->last_decision().opponent_posterior[0] > 0.5);
    CHECK(alone->stats().believed == 0);
  }
  // The hand-match diagnostic: the worlds drawn by a deterministic bot's likelihood hold more of
  // the opponent's true hand than uniform worlds would, on average over positions (the bot's
  // moves say something of the cards it holds); the oracle's worlds hold all of it; uniform
  // worlds count nothing (no belief drew them).
  {
    SearchConfig told = config;
    told.opponent_rollout_policy = "heuristic-cautious";
    told.belief = 2000;
    double belief = 0, uniform = 0;
    int64_t matched = 0;
    for (uint64_t seed = 3; seed <= 10; ++seed) {
      auto player = Make(game, blueprint, told);
      const State s = BotPrefix(game, seed, 50, *player, "heuristic-cautious");
      engine::Rng rng(seed);
      player->ActOnState(game, s, rng);
      const SearchStats& st = player->stats();
      REQUIRE(st.believed == 1);
      matched += st.hand_matched;
      belief += st.belief_hand_match;
      uniform += st.uniform_hand_match;
      // What uniform worlds score: the unknown slots' share of the hidden cards.
      const int unknown = engine::OpponentUnknownCards(s);
      CHECK(st.uniform_hand_match ==
            Approx(unknown > 0 ? static_cast<double>(unknown) / (unknown + s.deck_size) : 0.0));
    }
    INFO("belief " << belief << " uniform " << uniform << " over " << matched);
    CHECK(matched >= 6);
    CHECK(belief > uniform + 0.03 * static_cast<double>(matched));
    SearchConfig plain = told;
    plain.belief = 0;
    plain.belief_policy = "blueprint";
    auto player = Make(game, blueprint, plain);
    const State s = BotPrefix(game, 3, 50, *player, "heuristic-cautious");
    engine::Rng rng(3);
    player->ActOnState(game, s, rng);
    CHECK(player->stats().hand_matched == 0);
  }
  // One policy that finds every world as likely (random, over moves whose number of legal
  // alternatives does not depend on the hand) leaves every world its weight; no inference.
  {
    SearchConfig random = config;
    random.opponent_rollout_policy = "random";
    auto player = Make(game, blueprint, random);
    const State s = ObservedPrefix(game, 3, 40, *player, /*discards=*/true);
    engine::Rng rng(5);
    player->ActOnState(game, s, rng);
    CHECK(player->stats().believed == 1);
    CHECK(player->last_decision().belief_ess == Approx(64.0));
    CHECK(player->last_decision().opponent_posterior.empty());
    CHECK(player->stats().inferred == 0);
  }
  // Without the game's moves: uniform worlds and the prior, and the decision says so.
  {
    auto player = Make(game, blueprint, config);
    const State u = UnseenTurns(game);
    engine::Rng rng(8);
    player->ActOnState(game, u, rng);
    CHECK(player->stats().belief_missing == 1);
    CHECK(player->stats().believed == 0);
    for (double p : player->last_decision().opponent_posterior) CHECK(p == Approx(1.0 / 3));
  }
}

TEST_CASE(
    "Search's belief under the opponent's policies decides the same for any widths and "
    "workers",
    "[search]") {
  const LostCities game(ShortRules());
  SearchConfig config;
  config.rollouts = 30;
  config.opponent_rollout_policy = "current,heuristic-balanced,random";
  config.belief = 20;
  config.belief_policy = "opponent";
  config.belief_power = 0.5;
  config.threshold = 0.5;
  DecideAtShapes(
      game, config,
      [](const SearchPlayer& player, uint64_t) {
        CHECK(player.stats().inferred == 1);
        CHECK(player.stats().believed == 1);
      },
      [](const SearchDecision& d, const SearchDecision& first) {
        CHECK(d.opponent_posterior == first.opponent_posterior);
        CHECK(d.belief_ess == first.belief_ess);
      });
}

TEST_CASE("Search's auto objective plays for wins where the game is all but decided", "[search]") {
  const LostCities game;
  Blueprint blueprint;
  blueprint.bot = "heuristic-balanced";
  auto decide = [&](uint64_t deal, const std::string& objective, const std::string& own,
                    const std::string& opponent) {
    SearchConfig config;
    config.rollouts = 400;
    config.objective = objective;
    config.rollout_policy = own;
    config.opponent_rollout_policy = opponent;
    auto player = Make(game, blueprint, config);
    engine::Rng rng(3);
    player->ActOnState(game, game.DealFromSeed(deal), rng);
    CHECK(player->stats().searched == 1);
    CHECK(player->stats().win_objective == (player->last_decision().win_objective ? 1 : 0));
    return player->last_decision();
  };
  int wins = 0, scores = 0;
  for (uint64_t deal : {11, 12, 13}) {
    for (const auto& [own, opponent] : std::vector<std::pair<std::string, std::string>>{
             {"heuristic-balanced", "random"},
             {"random", "heuristic-balanced"},
             {"heuristic-balanced", "heuristic-balanced"},
             {"heuristic-cautious", "heuristic-aggressive"}}) {
      INFO(own << " against " << opponent << ", deal " << deal);
      const SearchDecision by_win = decide(deal, "win", own, opponent);
      const SearchDecision by_score = decide(deal, "score", own, opponent);
      const SearchDecision automatic = decide(deal, "auto", own, opponent);
      CHECK(by_win.win_objective);
      CHECK_FALSE(by_score.win_objective);
      // One phase (uniform): the share is b's mean under the win objective.
      const int kb = static_cast<int>(
          std::find(by_win.candidates.begin(), by_win.candidates.end(), by_win.blueprint) -
          by_win.candidates.begin());
      const double share = by_win.mean[kb];
      const bool decided = share >= 0.75 || share <= 0.25;
      CHECK(automatic.win_objective == decided);
      CHECK(automatic.mean == (decided ? by_win.mean : by_score.mean));
      CHECK(automatic.stderr_d == (decided ? by_win.stderr_d : by_score.stderr_d));
      CHECK(automatic.chosen == (decided ? by_win.chosen : by_score.chosen));
      (decided ? wins : scores) += 1;
      // The heuristic beats random in nearly every rollout, from either seat.
      if (opponent == "random" || own == "random") CHECK(decided);
    }
  }
  CHECK(wins > 0);
  CHECK(scores > 0);
  // Checked: auto is named, a cut rollout cannot score a win.
  SearchConfig config;
  config.objective = "auto";
  CHECK(config.Validate().ok());
  config.rollout_depth = 4;
  CHECK_THAT(std::string(config.Validate().message()),
             Catch::Contains("--rollout-depth needs --objective score"));
  config.rollout_depth = 0;
  config.objective = "wins";
  CHECK_THAT(std::string(config.Validate().message()),
             Catch::Contains("--objective must be score, win or auto (got 'wins')"));
}

TEST_CASE("A model player's Probability is the distribution it plays from", "[search]") {
  const LostCities game;
  traversal::PseudoNetworkEvaluator network(game.EncodingSize(), game.num_actions(), 7);
  traversal::PolicyClient client = traversal::PolicyClient::Direct(&network);
  State s = game.DealFromSeed(4);
  for (const bool greedy : {false, true}) {
    play::PolicyBot bot(&client, play::PlayPolicy{play::PlayPolicy::Source::kCurrent, greedy},
                        game);
    engine::Rng rng(1);
    for (int step = 0; step < 20; ++step) {
      const uint32_t legal = game.LegalMask(s);
      double total = 0;
      for (int a = 0; a < game.num_actions(); ++a) {
        const double p = bot.Probability(game, s, a);
        if (!((legal >> a) & 1)) CHECK(p == 0.0);
        total += p;
      }
      CHECK(total == Approx(1.0));
      // Greedy play puts everything on the action it plays (no ties in these outputs); sampled
      // play has the policy's distribution.
      const int played = bot.ActOnState(game, s, rng);
      const std::vector<float> sampled(bot.probabilities().begin(), bot.probabilities().end());
      if (greedy) {
        CHECK(bot.Probability(game, s, played) == 1.0);
      } else {
        for (int a = 0; a < game.num_actions(); ++a) {
          CHECK(bot.Probability(game, s, a) == Approx(sampled[a]));
        }
      }
      game.ApplyUnchecked(s, played);
    }
  }
}

TEST_CASE("Search's opponent policies are checked, naming the flag", "[search]") {
  auto message = [](SearchConfig c) { return std::string(c.Validate().message()); };
  SearchConfig c;
  c.opponent_rollout_policy = "random,,discard-only";
  CHECK_THAT(message(c), Catch::Contains("--opponent-rollout-policy: an empty name"));
  c.opponent_rollout_policy = "random,";
  CHECK_THAT(message(c), Catch::Contains("--opponent-rollout-policy: an empty name"));
  c.opponent_rollout_policy = "current,oracle";
  CHECK_THAT(message(c), Catch::Contains("--opponent-rollout-policy: unknown policy 'oracle'"));
  c.opponent_rollout_policy = "random,current,random";
  CHECK_THAT(message(c), Catch::Contains("'random' is named twice"));
  c.opponent_rollout_policy = "random,discard-only";
  CHECK(c.Validate().ok());
  c.opponent_worlds = 0;
  CHECK_THAT(message(c), Catch::Contains("--opponent-worlds must be in"));
  c = {};
  c.opponent_rollout_policy = "random,current";
  CHECK(c.rollouts_name_model());
  CHECK(c.infers_opponent());
  c.opponent_rollout_policy = "current";
  CHECK_FALSE(c.infers_opponent());
}

}  // namespace
}  // namespace lcfr::training
