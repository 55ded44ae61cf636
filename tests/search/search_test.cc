// search/: the search's decisions on constructed positions, its determinism across widths,
// workers and match threads, its time budget, opponent inference and its refusals (network
// stand-ins; the real model's figures are in benchmarks/README.md, its decisions in
// tests/golden/search/).
#include <algorithm>
#include <atomic>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/card.h"
#include "engine/worlds.h"
#include "play/policy_bot.h"
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
  Rng rng(5);
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
  CHECK(player->report().deviations == 1);
  // The paired differences have no noise here (every world ends the same way), so even a huge
  // threshold is cleared.
  config.threshold = 1000;  // the most --threshold takes
  auto strict = Make(game, blueprint, config);
  Rng rng2(5);
  CHECK(strict->ActOnState(game, s, rng2) == action);
  // A single round leaves the standard error unknown: the blueprint's move unless threshold 0.
  config.rollouts = 1;
  config.threshold = 1.0;
  auto one_round = Make(game, blueprint, config);
  Rng rng3(5);
  CHECK(one_round->ActOnState(game, s, rng3) == d.blueprint);
  config.threshold = 0.0;
  auto one_round_zero = Make(game, blueprint, config);
  Rng rng4(5);
  CHECK(one_round_zero->ActOnState(game, s, rng4) == action);
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
  Rng rng(1);
  CHECK(player->ActOnState(game, s, rng) == game.deck_action());
  CHECK(player->last_decision().rollouts == 0);
  CHECK(player->report().searched == 0);

  // --candidates 1 with a greedy blueprint: its own choice is the only candidate.
  const State start = game.DealFromSeed(4);
  model.play.greedy = true;
  config.candidates = 1;
  auto top1 = Make(game, model, config, Pseudo(game));
  Rng rng2(2);
  const int action = top1->ActOnState(game, start, rng2);
  CHECK(top1->last_decision().candidates == std::vector<int>{action});
  CHECK(top1->last_decision().rollouts == 0);
  auto evaluator = Pseudo(game)(0);
  traversal::PolicyClient direct = traversal::PolicyClient::Direct(evaluator.get());
  play::PolicyBot greedy(&direct, model.play, game);
  Rng rng3(3);
  CHECK(greedy.ActOnState(game, start, rng3) == action);
  // --candidates 3: the blueprint's three most probable actions.
  config.candidates = 3;
  config.rollouts = 30;
  auto top3 = Make(game, model, config, Pseudo(game));
  Rng rng4(2);
  top3->ActOnState(game, start, rng4);
  CHECK(top3->last_decision().candidates.size() == 3);
  CHECK(std::count(top3->last_decision().candidates.begin(), top3->last_decision().candidates.end(),
                   action) == 1);
}

TEST_CASE("Search decides the same for any widths and workers", "[search][threads]") {
  const LostCities game(ShortRules());
  Blueprint model;
  model.play.source = play::PlayPolicy::Source::kCurrent;
  SearchConfig config;
  config.rollouts = 40;
  config.threshold = 0.5;
  config.allocation = GENERATE(Allocation::kUniform, Allocation::kRacing);
  INFO("allocation " << ValueText(config, ExperimentalSearchFields()[0]));
  std::vector<std::pair<int, int>> shapes = {{1, 1}, {2, 8}, {1, 5}, {3, 64}};
  std::vector<std::vector<SearchDecision>> decisions(shapes.size());
  for (size_t k = 0; k < shapes.size(); ++k) {
    config.workers = shapes[k].first;
    config.width = shapes[k].second;
    auto player = Make(game, model, config, Pseudo(game));
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      State s = game.DealFromSeed(seed);
      Rng prefix(seed);
      for (int j = 0; j < static_cast<int>(seed) * 9; ++j) {
        const std::vector<int> legal = game.LegalActions(s);
        game.ApplyUnchecked(s, legal[prefix.Uniform(static_cast<uint32_t>(legal.size()))]);
      }
      Rng rng(seed * 31);
      player->ActOnState(game, s, rng);
      decisions[k].push_back(player->last_decision());
    }
    CHECK(player->report().rows_per_batch() <= config.width);
  }
  for (size_t k = 1; k < shapes.size(); ++k) {
    INFO("workers " << shapes[k].first << ", width " << shapes[k].second);
    for (size_t i = 0; i < decisions[0].size(); ++i) {
      CHECK(decisions[k][i].candidates == decisions[0][i].candidates);
      CHECK(decisions[k][i].mean == decisions[0][i].mean);
      CHECK(decisions[k][i].stderr_d == decisions[0][i].stderr_d);
      CHECK(decisions[k][i].chosen == decisions[0][i].chosen);
      CHECK(decisions[k][i].rollouts == decisions[0][i].rollouts);
      CHECK(decisions[k][i].played == decisions[0][i].played);
    }
  }
  CHECK(decisions[0][0].rollouts > 0);
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
    Rng rng(4);
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
    Rng rng(2);
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
                          const EvaluatorFactory& rollouts) {
  auto player = SearchPlayer::Create(game, blueprint, config, own, rollouts);
  INFO(player.status().message());
  REQUIRE(player.ok());
  Rng rng(4);
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

TEST_CASE("Search matches are the same on any number of threads", "[search][threads]") {
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
  Rng rng(1);
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
  c.candidates = -1;
  CHECK_THAT(message(c), Catch::Contains("--candidates"));
  c = {};
  c.threshold = -0.5;
  CHECK_THAT(message(c), Catch::Contains("--threshold"));
  for (double t : {-0.01, 1e6, std::nan("")}) {
    c = {};
    c.threshold = t;
    CHECK_THAT(message(c), Catch::Contains("--threshold must be in [0, 1000] (got "));
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
  c.objective = Objective::kWin;
  CHECK_THAT(message(c), Catch::Contains("--rollout-depth needs --objective score"));
  for (const double z : {0.0, -1.0, std::numeric_limits<double>::infinity()}) {
    c = {};
    c.drop_threshold = z;
    CHECK_THAT(message(c), Catch::Contains("--drop-threshold must be in [0.001, 100]"));
  }
  // The model plays, but no evaluators were given.
  const LostCities game;
  CHECK_FALSE(SearchPlayer::Create(game, Blueprint{}, SearchConfig{}, {}).ok());
  Blueprint unknown;
  unknown.bot = "nobody";
  CHECK_FALSE(SearchPlayer::Create(game, unknown, SearchConfig{}, {}).ok());
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
      Rng rng(seed);
      player->ActOnState(game, s, rng);
      const std::vector<double>& posterior = player->last_decision().opponent_posterior;
      REQUIRE(posterior.size() == names.size());
      double total = 0;
      for (double p : posterior) total += p;
      CHECK(total == Approx(1.0));
      for (size_t other = 0; other < names.size(); ++other) {
        if (other != truth) CHECK(posterior[truth] > 2 * posterior[other]);
      }
      CHECK(player->report().inferred == 1);
      CHECK(player->report().mean_opponent_posterior(truth) == Approx(posterior[truth]));
    }
  }
  // A posterior of 1 plays every round with that policy: the same rollouts as naming it alone
  // (the same worlds and streams).
  {
    auto player = Make(game, blueprint, config);
    const State s = BotPrefix(game, 5, 50, *player, "discard-only");
    Rng rng(8);
    player->ActOnState(game, s, rng);
    REQUIRE(player->last_decision().opponent_posterior[2] > 1 - 1e-9);
    SearchConfig alone = config;
    alone.opponent_rollout_policy = "discard-only";
    auto single = Make(game, blueprint, alone);
    Rng rng2(8);
    single->ActOnState(game, s, rng2);
    CHECK(player->last_decision().mean == single->last_decision().mean);
    CHECK(player->last_decision().opponent_posterior.size() == 3);
    CHECK(single->last_decision().opponent_posterior.empty());
    // Without the game's moves the prior is used, a third each, and no decision counts as
    // inferred.
    auto mixed = Make(game, blueprint, config);
    const State u = UnseenTurns(game);  // no moves seen: the prior, a third each
    Rng rng3(8);
    mixed->ActOnState(game, u, rng3);
    for (double p : mixed->last_decision().opponent_posterior) CHECK(p == Approx(1.0 / 3));
    CHECK(mixed->report().inferred == 0);
  }
}

TEST_CASE("Search's opponent inference decides the same for any widths and workers",
          "[search][threads]") {
  const LostCities game(ShortRules());
  SearchConfig config;
  config.rollouts = 30;
  config.opponent_rollout_policy = "current,heuristic-balanced,random";
  config.opponent_worlds = 20;
  config.threshold = 0.5;
  const std::vector<std::vector<SearchDecision>> decisions = DecideAtShapes(
      game, config,
      [](const SearchPlayer& player, uint64_t) { CHECK(player.report().inferred == 1); },
      [](const SearchDecision& d, const SearchDecision& first) {
        CHECK(d.opponent_posterior == first.opponent_posterior);
      });
  // The opponent's random moves are the likeliest under the random policy.
  CHECK(decisions[0][2].opponent_posterior[2] > 0.5);
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

TEST_CASE("docs/search.md's options table is the search's field table", "[search][docs]") {
  const std::string path = std::string(LCFR_SOURCE_DIR) + "/docs/search.md";
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  std::string doc = text.str();
  const std::string begin = "<!-- options:begin -->\n", end = "<!-- options:end -->";
  const size_t b = doc.find(begin), e = doc.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  const std::string table = doc.substr(b + begin.size(), e - b - begin.size());
  if (std::getenv("LCFR_UPDATE_GOLDEN") != nullptr && table != OptionsMarkdown()) {
    doc.replace(b + begin.size(), e - b - begin.size(), OptionsMarkdown());
    std::ofstream(path) << doc;
    WARN("rewrote the options table of " << path);
    return;
  }
  INFO("LCFR_UPDATE_GOLDEN=1 build/tests/search/search_tests '[docs]' rewrites it");
  CHECK(table == OptionsMarkdown());
}

}  // namespace
}  // namespace lcfr::search
