#include <catch2/catch.hpp>

#include "engine/lost_cities.h"
#include "tests/engine/test_util.h"

namespace lcfr::engine {
namespace {

using testing::WithExpedition;

int Score(const std::vector<std::string>& cards) {
  const LostCities game;
  const State s = WithExpedition(game, 0, cards);
  return game.ColorScore(s, 0, CardColor(*ParseCard(game.rules(), cards.front())));
}

TEST_CASE("scoring: the checked examples of rules.md", "[scoring]") {
  CHECK(Score({"R2", "R4", "R6"}) == -8);
  CHECK(Score({"R*", "R6"}) == -28);
  CHECK(Score({"R*", "R*"}) == -60);
  CHECK(Score({"R*", "R*", "R*"}) == -80);
  CHECK(Score({"R*", "R*", "R2", "R3", "R4"}) == -33);
  CHECK(Score({"R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9"}) == 44);
  CHECK(Score({"R*", "R*", "R*", "R2", "R3", "R4", "R5", "R6"}) == 20);
  CHECK(Score({"R*", "R*", "R*", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10"}) == 156);
}

TEST_CASE("scoring: empty colors score 0 and totals add colors", "[scoring]") {
  const LostCities game;
  const State s = WithExpedition(game, 1, {"Y2", "Y4", "Y6", "B*", "B6"});
  CHECK(game.ColorScore(s, 1, 2) == 0);
  CHECK(LostCities::Score(s, 1) == -8 + -28);
  CHECK(LostCities::Score(s, 0) == 0);
  CHECK(LostCities::Payoff(s, 0) == 36);
  CHECK(LostCities::Payoff(s, 1) == -36);
}

TEST_CASE("scoring: bonus is added after the multiplication, parameters respected", "[scoring]") {
  Rules rules;
  rules.colors = 2;
  rules.ranks = 4;
  rules.wagers = 1;
  rules.hand_size = 2;
  rules.expedition_cost = 5;
  rules.bonus_threshold = 3;
  rules.bonus = 7;
  const LostCities game(rules);
  // [W, 2, 3]: (5 - 5) * 2 + 7 = 7; [2, 3, 4, 5] with min_rank 2: (14 - 5) * 1 + 7 = 16.
  CHECK(game.ColorScore(WithExpedition(game, 0, {"Y*", "Y2", "Y3"}), 0, 0) == 7);
  CHECK(game.ColorScore(WithExpedition(game, 0, {"B2", "B3", "B4", "B5"}), 0, 1) == 16);
  // Negative totals are multiplied too: [W, 2] = (2 - 5) * 2 = -6.
  CHECK(game.ColorScore(WithExpedition(game, 0, {"B*", "B2"}), 0, 1) == -6);
}

}  // namespace
}  // namespace lcfr::engine
