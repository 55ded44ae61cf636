#include "io/agent_protocol.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engine/worlds.h"
#include "play/bots.h"

namespace lcfr::io {

using engine::CardColor;
using engine::CardName;
using engine::IsWager;
using engine::kNoCard;
using engine::LostCities;
using engine::Move;
using engine::SampleWorldHistory;
using engine::SeeMove;
using engine::SeenMove;
using engine::State;
using engine::View;
using engine::WorldHistory;
using play::Bot;
using play::MakeBot;
using play::RandomBot;
namespace {

TEST_CASE("agent protocol: observations round-trip to the same view", "[agent]") {
  const LostCities game;
  auto h = *MakeBot("heuristic-balanced");
  auto r = *MakeBot("random");
  std::vector<float> truth(game.EncodingSize());
  std::vector<float> seen(game.EncodingSize());
  int checked = 0;
  for (uint64_t g = 0; g < 20; ++g) {
    Rng rng(g);
    State s = game.Deal(rng);
    while (!LostCities::IsTerminal(s)) {
      const std::string line = ObservationToProtocol(game, s);
      Rng determinize(g + 100);
      const absl::StatusOr<Observation> obs = ParseObservation(line, determinize);
      if (!obs.ok()) FAIL(obs.status().message() << "\n" << line);
      // Same information state (the acting player is seat 0 there)...
      game.Encode(s, truth);
      game.Encode(obs->state, seen);
      if (truth != seen) FAIL("encodings differ for\n" << line);
      // ...and so the same bot decision, named the same way.
      Rng r1(5);
      Rng r2(5);
      const int a_true = h->Act(game, game.MoverView(s), r1);
      const int a_obs = h->Act(game, game.MoverView(obs->state), r2);
      const std::string named = ActionToProtocol(game, s, a_true);
      if (named != ActionToProtocol(game, obs->state, a_obs)) FAIL("different action " << named);
      const absl::StatusOr<int> back = ActionFromProtocol(game, s, named);
      REQUIRE(back.ok());
      CHECK(*back == a_true);
      ++checked;
      Bot* actor = s.player == 0 ? h.get() : r.get();
      game.ApplyUnchecked(s, actor->Act(game, game.MoverView(s), rng));
    }
  }
  CHECK(checked > 1000);
}

// Keeps every move it is told, as its seat saw it (what the searching player keeps).
class Recorder final : public Bot {
 public:
  int Act(const LostCities& game, const View& view, Rng& rng) override {
    return RandomBot().Act(game, view, rng);
  }
  void Observe(const LostCities& game, const State& before, int action, int seat) override {
    seen.push_back(SeeMove(game, before, action, seat));
  }
  void Forget() override { seen.clear(); }
  std::string Name() const override { return "recorder"; }
  std::vector<SeenMove> seen;
};

TEST_CASE("agent protocol: the game's moves round-trip, the player at its seat", "[agent]") {
  const LostCities game;
  auto h = *MakeBot("heuristic-balanced");
  auto r = *MakeBot("random");  // plays wagers, discards and pile draws of every kind
  std::vector<float> truth(game.EncodingSize());
  std::vector<float> seen_encoding(game.EncodingSize());
  Recorder told;
  int checked = 0, wagers = 0, pile_draws = 0;
  for (uint64_t g = 0; g < 12; ++g) {
    Rng rng(g);
    State s = game.Deal(rng);
    std::vector<SeenMove> seen[2];  // the game's moves as each seat saw them
    while (!LostCities::IsTerminal(s)) {
      const std::string line = ObservationToProtocol(game, s, seen[s.player]);
      Rng determinize(g + 100);
      const absl::StatusOr<Observation> obs = ParseObservation(line, determinize);
      if (!obs.ok()) FAIL(obs.status().message() << "\n" << line);
      REQUIRE(obs->has_moves);
      // The player sits at its seat; the same information state and decisions.
      CHECK(obs->state.player == s.player);
      CHECK(obs->state.decisions == s.decisions);
      game.Encode(s, truth);
      game.Encode(obs->state, seen_encoding);
      if (truth != seen_encoding) FAIL("encodings differ for\n" << line);
      // The same moves, a wager perhaps by another id of its color.
      REQUIRE(obs->moves.size() == seen[s.player].size());
      for (size_t i = 0; i < obs->moves.size(); ++i) {
        const SeenMove& a = obs->moves[i];
        const SeenMove& b = seen[s.player][i];
        CHECK(a.player == b.player);
        CHECK(a.kind == b.kind);
        if (b.card != kNoCard && IsWager(game.rules(), b.card)) {
          CHECK(IsWager(game.rules(), a.card));
          CHECK(CardColor(a.card) == CardColor(b.card));
          ++wagers;
        } else {
          CHECK(a.card == b.card);
        }
        pile_draws += b.kind == Move::Kind::kDrawPile;
      }
      // Any game drawn from them fits (the search draws many, and stops on one that does not).
      for (uint64_t draw = 1; draw <= 4; ++draw) {
        Rng any(draw * 7919 + checked);
        const absl::StatusOr<WorldHistory> world =
            SampleWorldHistory(game, obs->state, obs->moves, any);
        if (!world.ok()) FAIL(world.status().message() << "\n" << line);
      }
      // Told the history, a bot keeps exactly the moves the line named.
      told.seen.push_back(SeenMove{});  // a stale record, which the telling drops
      TellHistory(game, *obs, told);
      CHECK(told.seen == obs->moves);
      ++checked;
      Bot* actor = s.player == 0 ? h.get() : r.get();
      const int a = actor->Act(game, game.MoverView(s), rng);
      for (int seat = 0; seat < 2; ++seat) seen[seat].push_back(SeeMove(game, s, a, seat));
      game.ApplyUnchecked(s, a);
    }
  }
  CHECK(checked > 500);
  CHECK(wagers > 100);
  CHECK(pile_draws > 100);
  // Without moves a bot forgets what it was told, and the player is seat 0 as before.
  Rng rng(7);
  State s = game.Deal(rng);
  game.ApplyUnchecked(s, game.LegalActions(s)[0]);
  game.ApplyUnchecked(s, game.deck_action());
  const absl::StatusOr<Observation> plain = ParseObservation(ObservationToProtocol(game, s), rng);
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->has_moves);
  CHECK(plain->state.player == 0);
  TellHistory(game, *plain, told);
  CHECK(told.seen.empty());
}

std::string ErrorOf(const std::string& line) {
  Rng rng(1);
  const absl::StatusOr<Observation> obs = ParseObservation(line, rng);
  return obs.ok() ? "" : std::string(obs.status().message());
}

TEST_CASE("agent protocol: bad observations name the key", "[agent]") {
  const std::string hand = R"("hand": ["Y2","Y3","B4","B5","W6","G7","R8","R9"])";
  CHECK(ErrorOf(R"({"decision": "card", )" + hand + R"(, "deck_size": 44})").empty());
  CHECK(ErrorOf("not json").find("JSON object") != std::string::npos);
  CHECK(ErrorOf(R"({"decision": "card", )" + hand + R"(, "deck_size": 43})").find("deck_size") !=
        std::string::npos);
  CHECK(ErrorOf(R"({"decision": "draw", )" + hand + R"(, "deck_size": 44})").find("hand") !=
        std::string::npos);
  CHECK(ErrorOf(R"({"decision": "card", )" + hand + R"(, "deck_size": 44, "color": 1})")
            .find("color: unknown key") != std::string::npos);
  CHECK(ErrorOf(R"({"decision": "card", "hand": ["Y2","Y2","B4","B5","W6","G7","R8","R9"],
                    "deck_size": 44})")
            .find("appears twice") != std::string::npos);
  CHECK(ErrorOf(R"({"decision": "card", )" + hand + R"(, "deck_size": 44, "last_discard": "R"})")
            .find("last_discard") != std::string::npos);
  CHECK(ErrorOf(R"({"decision": "card", )" + hand + R"(, "rules": {"colors": 7}, "deck_size": 44})")
            .find("rules.colors") != std::string::npos);
}

TEST_CASE("agent protocol: bad moves name the move and what is wrong", "[agent]") {
  // Seat 1's opening card decision after seat 0's first turn: Y2 discarded, the deck drawn.
  const LostCities game;
  State s = game.DealFromSeed(3);
  const int discard = game.EncodeMove(Move::Discard(0));
  const std::string first = CardName(game.rules(), s.hand[0][0]);
  std::vector<SeenMove> seen;
  seen.push_back(SeeMove(game, s, discard, 1));
  game.ApplyUnchecked(s, discard);
  seen.push_back(SeeMove(game, s, game.deck_action(), 1));
  game.ApplyUnchecked(s, game.deck_action());
  const std::string good = ObservationToProtocol(game, s, seen);
  const std::string mine = CardName(game.rules(), s.hand[1][0]);  // not on any pile
  REQUIRE(ErrorOf(good).empty());
  // `good` with its "moves" replaced.
  auto with_moves = [&](const std::string& moves) {
    const size_t at = good.find("\"moves\":");
    REQUIRE(at != std::string::npos);
    return good.substr(0, at) + "\"moves\":" + moves + "}";
  };
  const std::string discard_move = R"({"by":"opponent","discard":")" + first + R"("})";
  CHECK(ErrorOf(with_moves("[" + discard_move + R"(,{"by":"opponent","draw":"deck"}])")).empty());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"3", "moves: must be an array"},
      {"[1, 2]", "moves[0]: must be an object"},
      {R"([{"by":"opponent","discard":"Y2","draw":"deck"}])", "moves[0]: needs exactly one"},
      {R"([{"by":"them","discard":"Y2"}])", "moves[0].by: required"},
      {R"([{"by":"opponent","discard":"Y2","note":1}])", "moves[0].note: unknown key"},
      {R"([{"by":"opponent","draw":"deck"}])",
       "moves[0]: a turn is a play or discard, then a draw"},
      {"[" + discard_move + R"(,{"by":"me","draw":"deck","card":"B3"}])",
       "moves[1].by: the players take turns"},
      {"[" + discard_move + R"(,{"by":"opponent","draw":"deck","card":"B3"}])",
       "moves[1].card: the opponent's deck draw is hidden"},
      {"[" + discard_move + R"(,{"by":"opponent","draw":"Y"}])", "moves[1].card: required"},
      {"[" + discard_move + R"(,{"by":"opponent","draw":"Y","card":"B3"}])",
       "moves[1].card: B3 is not a card of the Y pile"},
      {"[" + discard_move + "]", "moves: 1 moves leave a turn's draw decision next"},
      {"[]", "moves: holds 0 moves, one per decision, and decisions says 2"},
      {R"([{"by":"opponent","discard":"Q2"}])", "moves[0].discard"},
      // Well formed, but not this game: the discarded card is not on its pile...
      {R"([{"by":"opponent","discard":")" + mine + R"("},{"by":"opponent","draw":"deck"}])",
       "moves[0]: " + mine + " is not the top of its discard pile"},
      // ...or the history leads elsewhere (the discard pile would hold it under a drawn card).
      {"[" + discard_move + R"(,{"by":"opponent","draw":"deck"},{"by":"me","play":"B3"}])",
       "moves: 3 moves leave a turn's draw decision next"},
  };
  for (const auto& [moves, expected] : cases) {
    INFO(moves);
    CHECK_THAT(ErrorOf(with_moves(moves)), Catch::Contains(expected));
  }
  // The opponent known to hold a wager it took from a pile: opponent_known must say so.
  const std::string taken =
      R"({"decision":"card","hand":["Y3","B4","B5","W6","G7","R8","R9","R10"],)"
      R"("discards":{"Y":["Y2"],"G":["G3"]},"deck_size":42,"moves":[)"
      R"({"by":"opponent","discard":"Y2"},{"by":"opponent","draw":"deck"},)"
      R"({"by":"me","discard":"B*"},{"by":"me","draw":"deck","card":"R10"},)"
      R"({"by":"opponent","discard":"G3"},{"by":"opponent","draw":"B","card":"B*"}])";
  CHECK(ErrorOf(taken + R"(,"opponent_known":["B*"]})").empty());
  CHECK_THAT(ErrorOf(taken + "}"),
             Catch::Contains("opponent_known: names 0 B wagers; the moves leave the opponent "
                             "known to hold at least 1"));
  // The count must agree with "decisions".
  std::string counted = good;
  const size_t at = counted.find("\"decisions\":2");
  REQUIRE(at != std::string::npos);
  counted.replace(at, std::string("\"decisions\":2").size(), "\"decisions\":4");
  CHECK_THAT(ErrorOf(counted), Catch::Contains("moves: holds 2 moves, one per decision"));
}

TEST_CASE("agent protocol: actions by name", "[agent]") {
  const LostCities game;
  Rng rng(1);
  const absl::StatusOr<Observation> obs = ParseObservation(
      R"({"decision": "card", "hand": ["Y*","Y3","B4","B5","W6","G7","R8","R9"],
          "expeditions": {"mine": ["R10"], "opponent": []}, "deck_size": 43})",
      rng);
  REQUIRE(obs.ok());
  const State& s = obs->state;
  CHECK(*ActionFromProtocol(game, s, R"({"play":"Y*"})") == 0);
  CHECK(*ActionFromProtocol(game, s, R"({"discard":"Y3"})") == 3);
  const absl::StatusOr<int> bad = ActionFromProtocol(game, s, R"({"play":"R8"})");
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()).find("R10") != std::string::npos);
  CHECK_FALSE(ActionFromProtocol(game, s, R"({"play":"G2"})").ok());
  CHECK_FALSE(ActionFromProtocol(game, s, R"({"draw":"deck"})").ok());
  CHECK(ActionToProtocol(game, s, 0) == R"({"play":"Y*"})");
  CHECK(ActionToProtocol(game, s, 15) == R"({"discard":"R9"})");
}

TEST_CASE("agent protocol: deep nesting is an error, not a crash", "[agent]") {
  Rng rng(1);
  const std::string line =
      "{\"x\":" + std::string(150000, '[') + std::string(150000, ']') + ",\"decision\":\"card\"}";
  const absl::StatusOr<Observation> obs = ParseObservation(line, rng);
  REQUIRE(!obs.ok());
  CHECK(std::string(obs.status().message()).find("nested deeper") != std::string::npos);
  const LostCities game;
  const State state = game.Deal(rng);
  CHECK(!ActionFromProtocol(game, state, "{\"play\":" + std::string(100, '[') + "}").ok());
}

}  // namespace
}  // namespace lcfr::io
