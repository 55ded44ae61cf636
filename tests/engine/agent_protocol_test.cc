#include "engine/agent_protocol.h"

#include <catch2/catch.hpp>
#include <string>

#include "engine/bots.h"

namespace lcfr::engine {
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
}  // namespace lcfr::engine
