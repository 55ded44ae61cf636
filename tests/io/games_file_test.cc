#include "io/games_file.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "play/bots.h"
#include "play/match.h"

namespace lcfr::io {

using engine::LostCities;
using engine::Rules;
using play::DealDigest;
using play::GameOutcome;
using play::MakeBot;
using play::MatchResult;
using play::PairedDifference;
using play::PairedDifferenceOf;
using play::PlayMatch;
using play::PlayMatchGame;
using play::SeatOfA;
namespace {

TEST_CASE("match: per-game results come in game order and add up to the totals", "[match]") {
  const LostCities game;
  auto a = *MakeBot("heuristic-balanced");
  auto b = *MakeBot("random");
  const MatchResult r = PlayMatch(game, *a, *b, 12, 7);
  REQUIRE(r.per_game.size() == 12);
  double wins = 0, diff = 0, decisions = 0;
  for (int g = 0; g < 12; ++g) {
    // Game g alone, replayed: the same deal, seats and random stream.
    const GameOutcome again = PlayMatchGame(game, *a, *b, g, 7);
    CHECK(r.per_game[g].score_a == again.scores[SeatOfA(g)]);
    CHECK(r.per_game[g].score_b == again.scores[1 - SeatOfA(g)]);
    CHECK(r.per_game[g].decisions == again.decisions);
    wins += r.per_game[g].win();
    diff += r.per_game[g].score_a - r.per_game[g].score_b;
    decisions += r.per_game[g].decisions;
  }
  CHECK(wins == r.wins + 0.5 * r.ties);
  CHECK(diff == r.score_diff_sum);
  CHECK(decisions == r.decisions_sum);
}

TEST_CASE("match: the paired difference and its interval", "[match]") {
  // Differences 1, 0, 0, 1: mean 0.5, sample variance 1/3, standard error sqrt(1/12).
  const PairedDifference d = PairedDifferenceOf({1, 1, 0.5, 1}, {0, 1, 0.5, 0});
  CHECK(d.games == 4);
  CHECK(d.mean == Approx(0.5));
  CHECK(d.high - d.mean == Approx(1.96 * std::sqrt(1.0 / 12)));
  CHECK(d.mean - d.low == Approx(1.96 * std::sqrt(1.0 / 12)));
  // Pairing: B is A plus a constant, so the difference has no spread however noisy A is.
  const PairedDifference c = PairedDifferenceOf({5, -20, 13, 40}, {3, -22, 11, 38});
  CHECK(c.mean == Approx(2.0));
  CHECK(c.low == Approx(2.0));
  CHECK(c.high == Approx(2.0));
}

TEST_CASE("games file: written and read back, every field", "[games_file]") {
  const LostCities game;
  auto a = *MakeBot("heuristic-cautious");
  auto b = *MakeBot("heuristic-noisy");
  const MatchResult r = PlayMatch(game, *a, *b, 9, 123456789012345ULL);
  const std::string text = GamesFileText(r, 123456789012345ULL);
  // Games 2k and 2k+1 share a deal; another deal, another rule set are other digests.
  CHECK(r.per_game[0].deal_digest == r.per_game[1].deal_digest);
  CHECK(r.per_game[0].deal_digest != r.per_game[2].deal_digest);
  Rules six;
  six.colors = 6;
  const LostCities six_game(six);
  CHECK(DealDigest(six_game, six_game.DealFromSeed(1)) != DealDigest(game, game.DealFromSeed(1)));
  CHECK(text.rfind(std::string(kGamesFileHeader) + "\n0,123456789012345,0,0,", 0) == 0);
  const absl::StatusOr<GamesFile> read = ParseGamesFile(text, "t.csv");
  REQUIRE(read.ok());
  CHECK(read->seed == 123456789012345ULL);
  REQUIRE(read->games.size() == 9);
  for (size_t g = 0; g < 9; ++g) {
    CHECK(read->games[g].score_a == r.per_game[g].score_a);
    CHECK(read->games[g].score_b == r.per_game[g].score_b);
    CHECK(read->games[g].decisions == r.per_game[g].decisions);
    CHECK(read->games[g].capped == r.per_game[g].capped);
    CHECK(read->games[g].deal_digest == r.per_game[g].deal_digest);
    CHECK(read->games[g].deal_digest != 0);
  }
  // Windows line ends read the same.
  std::string crlf;
  for (char ch : text) crlf += ch == '\n' ? std::string("\r\n") : std::string(1, ch);
  CHECK(ParseGamesFile(crlf, "t.csv").ok());
}

TEST_CASE("games file: bad files are refused with the file and line", "[games_file]") {
  const std::string header = std::string(kGamesFileHeader) + "\n";
  const std::string good = "0,5,0,0,47,-51,98,1,150,0,00000000000000ff\n";
  auto message = [](const std::string& text) {
    const absl::StatusOr<GamesFile> read = ParseGamesFile(text, "g.csv");
    return read.ok() ? std::string("ok") : std::string(read.status().message());
  };
  CHECK(message(header + good) == "ok");
  CHECK(message("") == "g.csv: empty; expected the header '" + std::string(kGamesFileHeader) + "'");
  CHECK(message("a,b\n" + good).rfind("g.csv:1: not a games file", 0) == 0);
  CHECK(message(header) == "g.csv:1: no games after the header");
  CHECK(message(header + "0,5,0,0,47,-51,98,1,150,0\n") == "g.csv:2: expected 11 fields, found 10");
  CHECK(message(header + "0,5,0,0,4x,-51,98,1,150,0,00000000000000ff\n") ==
        "g.csv:2: score: '4x' is not an integer");
  CHECK(message(header + "0,-5,0,0,47,-51,98,1,150,0,00000000000000ff\n") ==
        "g.csv:2: seed: '-5' is not a non-negative integer");
  CHECK(message(header + "1,5,0,1,47,-51,98,1,150,0,00000000000000ff\n") ==
        "g.csv:2: game 1 where game 0 comes next");
  CHECK(message(header + "0,5,1,0,47,-51,98,1,150,0,00000000000000ff\n") ==
        "g.csv:2: deal 1 is not game / 2 = 0");
  CHECK(message(header + "0,5,0,1,47,-51,98,1,150,0,00000000000000ff\n") ==
        "g.csv:2: seat 1 is not game % 2 = 0");
  CHECK(message(header + "0,5,0,0,47,-51,97,1,150,0,00000000000000ff\n") ==
        "g.csv:2: diff 97 is not score - opponent_score = 98");
  CHECK(message(header + "0,5,0,0,47,-51,98,0.5,150,0,00000000000000ff\n") ==
        "g.csv:2: win '0.5' does not match the scores (expected 1)");
  CHECK(message(header + "0,5,0,0,47,-51,98,1,150,2,00000000000000ff\n") ==
        "g.csv:2: capped: 2 is not 0 or 1");
  CHECK(message(header + good + "1,6,0,1,47,-51,98,1,150,0,00000000000000ff\n") ==
        "g.csv:3: seed 6 differs from the first row's 5 (one match per file)");
  CHECK(message(header + "0,5,0,0,9999999,-51,10000050,1,150,0,00000000000000ff\n") ==
        "g.csv:2: a score beyond +-100000");
  CHECK(message(header + "0,5,0,0,10,10,0,0.5,150,0,00000000000000ff\n") == "ok");
  CHECK(message(header + "0,5,0,0,47,-51,98,1,150,0,ff\n") ==
        "g.csv:2: deal_digest: 'ff' is not 16 hexadecimal digits");
  CHECK(message(header + good + "1,5,0,1,47,-51,98,1,150,0,00000000000000fe\n") ==
        "g.csv:3: deal_digest differs from game 0's: games 2k and 2k+1 are one deal with the seats "
        "swapped");
  CHECK(
      message(std::string("game,seed,deal,seat,score,opponent_score,diff,win,decisions,capped\n") +
              "0,5,0,0,47,-51,98,1,150,0\n")
          .rfind("g.csv:1: written by an earlier lcfr", 0) == 0);
}

}  // namespace
}  // namespace lcfr::io
