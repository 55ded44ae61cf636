// The ladder's parts: Bradley-Terry ratings against their closed form and their intervals, and
// the games file (a row cut by a kill is dropped, a malformed one is an error naming its line).
#include "play/ladder.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace lcfr::play {
namespace {

std::vector<LadderGame> Games(const std::string& a, const std::string& b, int a_wins, int b_wins,
                              int ties) {
  std::vector<LadderGame> games;
  int g = 0;
  for (int k = 0; k < a_wins; ++k) games.push_back({a, b, g++, 10, 0, 50, false});
  for (int k = 0; k < b_wins; ++k) games.push_back({a, b, g++, 0, 10, 50, false});
  for (int k = 0; k < ties; ++k) games.push_back({a, b, g++, 5, 5, 50, false});
  return games;
}

const Rating& Of(const std::vector<Rating>& ratings, const std::string& name) {
  for (const Rating& r : ratings) {
    if (r.name == name) return r;
  }
  FAIL("no rating for " << name);
  return ratings.front();
}

TEST_CASE("BradleyTerry: two players, the closed form with the prior's drawn game", "[ladder]") {
  // 300 wins of 400 (+ the prior's half of one game): p_a / p_b = 300.5 / 100.5.
  const auto ratings = BradleyTerry({"a", "b"}, Games("a", "b", 300, 100, 0), "b");
  REQUIRE(ratings.ok());
  const double expected = 400 * std::log10(300.5 / 100.5);
  CHECK(Of(*ratings, "a").elo == Approx(expected).epsilon(1e-6));
  CHECK(Of(*ratings, "b").elo == 0);
  // The interval: 1.96 standard errors of log(p_a / p_b), sqrt(1/(n q (1 - q))), in Elo.
  const double q = 300.5 / 401, se = std::sqrt(1 / (401 * q * (1 - q)));
  const double half = 1.96 * 400 / std::log(10.0) * se;
  CHECK(Of(*ratings, "a").high - Of(*ratings, "a").elo == Approx(half).epsilon(1e-6));
  CHECK(Of(*ratings, "a").games == 400);
  CHECK(Of(*ratings, "a").score == Approx(0.75));
}

TEST_CASE("BradleyTerry: transitive strengths, ties, a player that lost everything", "[ladder]") {
  std::vector<LadderGame> games = Games("a", "b", 240, 160, 0);  // a over b: 3 : 2
  for (const LadderGame& g : Games("b", "c", 240, 120, 40)) games.push_back(g);
  for (const LadderGame& g : Games("a", "z", 400, 0, 0)) games.push_back(g);
  const auto ratings = BradleyTerry({"a", "b", "c", "z"}, games, "b");
  REQUIRE(ratings.ok());
  CHECK(Of(*ratings, "a").elo > 50);
  CHECK(Of(*ratings, "c").elo < -80);
  CHECK(Of(*ratings, "z").elo < Of(*ratings, "a").elo - 600);  // finite, far below
  CHECK(std::isfinite(Of(*ratings, "z").low));
  CHECK(Of(*ratings, "c").score == Approx((120 + 20) / 400.0));
}

TEST_CASE("BradleyTerry: refuses what has no common scale", "[ladder]") {
  CHECK(!BradleyTerry({"a", "b"}, Games("a", "b", 3, 1, 0), "x").ok());
  std::vector<LadderGame> games = Games("a", "b", 3, 1, 0);
  for (const LadderGame& g : Games("c", "d", 3, 1, 0)) games.push_back(g);
  const auto split = BradleyTerry({"a", "b", "c", "d"}, games, "a");
  REQUIRE(!split.ok());
  CHECK(std::string(split.status().message()).find("not connected to the anchor") !=
        std::string::npos);
  const auto idle = BradleyTerry({"a", "b", "c"}, Games("a", "b", 3, 1, 0), "a");
  REQUIRE(!idle.ok());
  CHECK(std::string(idle.status().message()).find("'c' has played no games") != std::string::npos);
}

std::string Write(const std::string& text) {
  char name[] = "/tmp/lcfr_ladder_test_XXXXXX";
  const int fd = ::mkstemp(name);
  ::close(fd);
  std::ofstream(name) << text;
  return name;
}

TEST_CASE("Ladder games file: rows round-trip, a cut last row is dropped", "[ladder]") {
  const LadderGame g{"shipped", "heuristic-cautious", 7, 41, -3, 88, true};
  const std::string header = std::string(kLadderGamesHeader) + "\n";
  const auto read = ReadLadderGames(Write(header + LadderGameRow(g) + "shipped,heur"));
  REQUIRE(read.ok());
  REQUIRE(read->size() == 1);
  CHECK((*read)[0].a == "shipped");
  CHECK((*read)[0].b == "heuristic-cautious");
  CHECK((*read)[0].game == 7);
  CHECK((*read)[0].score_a == 41);
  CHECK((*read)[0].score_b == -3);
  CHECK((*read)[0].capped);
}

TEST_CASE("Ladder games file: malformed rows and headers name their line", "[ladder]") {
  const std::string header = std::string(kLadderGamesHeader) + "\n";
  for (const char* row : {"a,b,x,1,2,3,0\n", "a,a,1,1,2,3,0\n", "a,b,1,1,2,3,2\n", "a,b,1,1,2,3\n",
                          "a,b,-1,1,2,3,0\n"}) {
    const auto read = ReadLadderGames(Write(header + std::string(row)));
    REQUIRE(!read.ok());
    CHECK(std::string(read.status().message()).find(": line 2: expected") != std::string::npos);
  }
  const auto headless = ReadLadderGames(Write("a,b\n"));
  REQUIRE(!headless.ok());
  CHECK(std::string(headless.status().message()).find("line 1") != std::string::npos);
}

}  // namespace
}  // namespace lcfr::play
