// A match's games, one CSV row each (lcfr eval and lcfr match --games-out), and reading them back
// (lcfr compare): two players' games on the same deals and seats, compared game by game, give the
// paired difference of their win rates (play/match.h, PairedDifference), whose interval is what
// a claim such as "search adds 15 points over the model without search" needs.
//
// The columns, A (the player evaluated) against B:
//   game            the game's index in the match, from 0
//   seed            the match's --seed
//   deal            the deal's index, game / 2 (games 2k and 2k+1 share deal k, seats swapped)
//   seat            A's seat, game % 2
//   score           A's score
//   opponent_score  B's score
//   diff            score - opponent_score
//   win             A's share of the win: 1, 0.5 (a tie) or 0
//   decisions       the game's decisions (both players')
//   capped          1 when the game was cut at the decision cap and scored as it stood
//   deal_digest     16 hex digits: the digest of the rules and of the cards as dealt
//                   (play/match.h, DealDigest), so that lcfr compare can tell that two files
//                   hold the same deals
#ifndef LCFR_IO_GAMES_FILE_H_
#define LCFR_IO_GAMES_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "play/match.h"

namespace lcfr::io {

inline constexpr std::string_view kGamesFileHeader =
    "game,seed,deal,seat,score,opponent_score,diff,win,decisions,capped,deal_digest";

struct GamesFile {
  uint64_t seed = 0;
  std::vector<play::GameResult> games;  // in game order
};

// The file's text: the header, then one row per game of `result` (in game order).
std::string GamesFileText(const play::MatchResult& result, uint64_t seed);

// Parses GamesFileText's form; errors name `name` and the line ("a.csv:7: ..."): a wrong header, a
// row of the wrong width, a field that is not a number, games out of order, a row that
// contradicts itself (deal, seat, diff or win not what the other fields make them), two seeds,
// a deal_digest that is not 16 hex digits, or games 2k and 2k+1 (one deal) of two digests.
absl::StatusOr<GamesFile> ParseGamesFile(std::string_view text, const std::string& name);
// ReadFileToString, then ParseGamesFile with the path as the name.
absl::StatusOr<GamesFile> ReadGamesFile(const std::string& path);

}  // namespace lcfr::io

#endif  // LCFR_IO_GAMES_FILE_H_
