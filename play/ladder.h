// A ladder (`lcfr ladder`): a round robin of named players on paired deals, every game kept in a
// file so that a ladder can be extended (a new player, more games a pair) and resumed after a
// kill, and one rating scale for all of them: Bradley-Terry strengths in Elo units with 95%
// intervals, anchored at a named player. Torch-free.
#ifndef LCFR_PLAY_LADDER_H_
#define LCFR_PLAY_LADDER_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace lcfr::play {

// One game of a ladder: the pair (a before b in the ladder's pair order), the game's index in
// that pair's match (PlayMatchGame's g: its deal pair g / 2, a in seat g % 2), and the scores.
struct LadderGame {
  std::string a, b;
  int game = 0;
  int score_a = 0, score_b = 0;
  int decisions = 0;
  bool capped = false;
};

// The games file: a CSV with the header `a,b,game,score_a,score_b,decisions,capped`, one row a
// game, appended as games finish. Reading drops a last line without its newline (a kill in the
// middle of a write); any other malformed row is an error naming the file and the line.
inline constexpr const char* kLadderGamesHeader = "a,b,game,score_a,score_b,decisions,capped";
absl::StatusOr<std::vector<LadderGame>> ReadLadderGames(const std::string& path);
std::string LadderGameRow(const LadderGame& game);  // with its newline

// A player's rating.
struct Rating {
  std::string name;
  double elo = 0;            // 400 log10 of its strength over the anchor's
  double low = 0, high = 0;  // 95% interval (the anchor's is [0, 0])
  int64_t games = 0;
  double score = 0;  // wins plus half the ties, over its games
};

// Bradley-Terry over `games` (a win counts 1, a tie half to each side), with a prior of one
// drawn game per pair that played (so that a player that won or lost every game keeps a finite
// strength): the maximum-a-posteriori strengths (Hunter's MM iterations), in Elo units relative
// to `anchor`, with 95% intervals from the observed information with the anchor fixed. Every
// player must have games and be connected to the anchor by games (errors name the player).
absl::StatusOr<std::vector<Rating>> BradleyTerry(const std::vector<std::string>& players,
                                                 const std::vector<LadderGame>& games,
                                                 const std::string& anchor);

}  // namespace lcfr::play

#endif  // LCFR_PLAY_LADDER_H_
