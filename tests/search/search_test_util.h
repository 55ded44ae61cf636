// Shared by the search's suites: network stand-ins, constructed positions, players.
#ifndef LCFR_TESTS_SEARCH_SEARCH_TEST_UTIL_H_
#define LCFR_TESTS_SEARCH_SEARCH_TEST_UTIL_H_

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/card.h"
#include "engine/lost_cities.h"
#include "engine/move.h"
#include "play/bots.h"
#include "search/config.h"
#include "search/player.h"
#include "traversal/evaluators.h"

namespace lcfr::search::testing {

using engine::Card;
using engine::LostCities;
using engine::State;

inline traversal::EvaluatorFactory Pseudo(const LostCities& game) {
  return [&game](int) -> std::unique_ptr<traversal::Evaluator> {
    return std::make_unique<traversal::PseudoNetworkEvaluator>(game.EncodingSize(),
                                                               game.num_actions(), 7);
  };
}

// Classic rules, games cut at 150 decisions (the stand-in network's games are long).
inline engine::Rules ShortRules() {
  engine::Rules rules;
  rules.max_decisions = 150;
  return rules;
}

// The last turn: player 0 to play a card, one card left in the deck. Player 0 holds Y10 (slot 0)
// and has Y5 Y6 out (-9 points); the opponent has nothing out. Playing Y10 wins +1 to 0 when
// the deck is drawn next; every other move loses.
inline State LastTurn(const LostCities& game) {
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

inline std::unique_ptr<SearchPlayer> Make(const LostCities& game, const Blueprint& blueprint,
                                          const SearchConfig& config,
                                          const traversal::EvaluatorFactory& f = {}) {
  auto player = SearchPlayer::Create(game, blueprint, config, f);
  INFO(player.status().message());
  REQUIRE(player.ok());
  return *std::move(player);
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

// A game from deal `seed` after `decisions` random moves (with `discards`, only discards and
// deck draws), each told to `player` for both seats (Bot::Observe), as a match tells it.
inline State ObservedPrefix(const LostCities& game, uint64_t seed, int decisions,
                            SearchPlayer& player, bool discards = false) {
  State s = game.DealFromSeed(seed);
  Rng rng(seed + 77);
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

// A game's first `decisions` decisions (or fewer, ending with player 0 to move): player 0 plays
// random legal moves, player 1 the bot `opponent`; the searching player is told every one.
inline State BotPrefix(const LostCities& game, uint64_t seed, int decisions, SearchPlayer& player,
                       const std::string& opponent) {
  auto bot = play::MakeBot(opponent);
  REQUIRE(bot.ok());
  State s = game.DealFromSeed(seed);
  Rng rng(seed + 91);
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
inline State UnseenTurns(const LostCities& game) {
  State u = game.DealFromSeed(5);
  for (int turn = 0; turn < 2; ++turn) {
    game.ApplyUnchecked(u, game.LegalActions(u)[0]);
    game.ApplyUnchecked(u, game.deck_action());
  }
  return u;
}

// A model player with `config` decides on three observed positions at three shapes (workers,
// width); the decisions must agree with the first shape's (means, choice, and `same`'s fields).
// `check` runs on each player after its decision.
inline std::vector<std::vector<SearchDecision>> DecideAtShapes(
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
      Rng rng(seed * 31);
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

}  // namespace lcfr::search::testing

#endif  // LCFR_TESTS_SEARCH_SEARCH_TEST_UTIL_H_
