// A games file (lcfr compare, written by eval and match --games-out): parse, then write what
// parsed and parse it again.
#include "fuzz/fuzz_util.h"
#include "io/games_file.h"
#include "play/match.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lcfr::engine;
  using namespace lcfr::io;
  using namespace lcfr::play;
  const auto file = ParseGamesFile(lcfr::fuzz::Text(data, size), "fuzz.csv");
  if (!file.ok()) return 0;
  lcfr::fuzz::Require(!file->games.empty(), "a parsed file has games");
  // What parses writes back to a file that parses to the same games (the seed, every column).
  MatchResult result;
  result.per_game = file->games;
  const auto again = ParseGamesFile(GamesFileText(result, file->seed), "again.csv");
  bool same = again.ok() && again->seed == file->seed && again->games.size() == file->games.size();
  for (size_t g = 0; same && g < file->games.size(); ++g) {
    const GameResult& a = file->games[g];
    const GameResult& b = again->games[g];
    same = a.score_a == b.score_a && a.score_b == b.score_b && a.decisions == b.decisions &&
           a.capped == b.capped && a.deal_digest == b.deal_digest;
  }
  lcfr::fuzz::Require(same, "GamesFileText(ParseGamesFile(x)) parses to the same games");
  return 0;
}
