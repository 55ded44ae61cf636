#include "io/games_file.h"

#include <charconv>
#include <cmath>

#include "base/files.h"
#include "base/stream_cat.h"
#include "fmt/core.h"

namespace lcfr::io {

using play::GameResult;
using play::MatchResult;
using play::SeatOfA;
namespace {

constexpr int kColumns = 11;

// `text` cut at every `separator` (an empty piece where two are adjacent or at either end).
std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  for (size_t start = 0;;) {
    const size_t end = text.find(separator, start);
    pieces.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return pieces;
    start = end + 1;
  }
}

// The integer in `field`, the whole of it (a uint64_t takes no sign).
template <typename Int>
bool ParseInteger(std::string_view field, Int& value) {
  if (field.empty()) return false;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  return error == std::errc() && end == field.data() + field.size();
}

// The `win` column's text for a share of the win: "1", "0.5" or "0".
const char* WinText(double win) { return win == 1.0 ? "1" : win == 0.5 ? "0.5" : "0"; }

}  // namespace

std::string GamesFileText(const MatchResult& result, uint64_t seed) {
  std::string text(kGamesFileHeader);
  text += '\n';
  for (size_t g = 0; g < result.per_game.size(); ++g) {
    const GameResult& r = result.per_game[g];
    text += fmt::format("{},{},{},{},{},{},{},{},{},{},{:016x}\n", g, seed, g / 2,
                        SeatOfA(static_cast<int>(g)), r.score_a, r.score_b, r.score_a - r.score_b,
                        WinText(r.win()), r.decisions, r.capped ? 1 : 0, r.deal_digest);
  }
  return text;
}

absl::StatusOr<GamesFile> ParseGamesFile(std::string_view text, const std::string& name) {
  std::vector<std::string_view> lines = Split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();  // the last line's newline
  auto error = [&name](size_t line, const auto&... what) {
    return absl::InvalidArgumentError(StreamCat(name, ":", line + 1, ": ", what...));
  };
  if (lines.empty()) {
    return absl::InvalidArgumentError(
        StreamCat(name, ": empty; expected the header '", kGamesFileHeader, "'"));
  }
  auto strip = [](std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
  };
  constexpr std::string_view kOldHeader =
      "game,seed,deal,seat,score,opponent_score,diff,win,decisions,capped";
  if (strip(lines[0]) == kOldHeader) {
    return error(0,
                 "written by an earlier lcfr, without the deal_digest column that tells two "
                 "files' deals apart: write it again with --games-out");
  }
  if (strip(lines[0]) != kGamesFileHeader) {
    return error(0, "not a games file (lcfr eval --games-out): expected the header '",
                 kGamesFileHeader, "'");
  }
  static constexpr const char* kNames[kColumns] = {
      "game", "seed", "deal",      "seat",   "score",      "opponent_score",
      "diff", "win",  "decisions", "capped", "deal_digest"};
  GamesFile file;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string_view> fields = Split(strip(lines[i]), ',');
    if (fields.size() != kColumns) {
      return error(i, "expected ", kColumns, " fields, found ", fields.size());
    }
    int64_t v[kColumns] = {};
    for (int c = 0; c < kColumns; ++c) {
      if (c == 7) continue;   // win: 0, 0.5 or 1, checked against the scores below
      if (c == 10) continue;  // deal_digest: hexadecimal, below
      if (c == 1) {           // the seed: unsigned, the same on every row
        uint64_t seed = 0;
        if (!ParseInteger(fields[c], seed)) {
          return error(i, "seed: '", fields[c], "' is not a non-negative integer");
        }
        if (i == 1) file.seed = seed;
        if (seed != file.seed) {
          return error(i, "seed ", seed, " differs from the first row's ", file.seed,
                       " (one match per file)");
        }
        continue;
      }
      if (!ParseInteger(fields[c], v[c])) {
        return error(i, kNames[c], ": '", fields[c], "' is not an integer");
      }
    }
    const int64_t game = static_cast<int64_t>(file.games.size());
    if (v[0] != game) return error(i, "game ", v[0], " where game ", game, " comes next");
    if (v[2] != game / 2) return error(i, "deal ", v[2], " is not game / 2 = ", game / 2);
    if (v[3] != SeatOfA(static_cast<int>(game))) {
      return error(i, "seat ", v[3], " is not game % 2 = ", SeatOfA(static_cast<int>(game)));
    }
    constexpr int64_t kMaxScore = 100000;  // far beyond any rules' score, far inside an int
    if (std::abs(v[4]) > kMaxScore || std::abs(v[5]) > kMaxScore) {
      return error(i, "a score beyond +-", kMaxScore);
    }
    if (v[6] != v[4] - v[5]) {
      return error(i, "diff ", v[6], " is not score - opponent_score = ", v[4] - v[5]);
    }
    GameResult r;
    r.score_a = static_cast<int>(v[4]);
    r.score_b = static_cast<int>(v[5]);
    const std::string_view win = fields[7];
    const char* expected = WinText(r.win());
    if (win != expected) {
      return error(i, "win '", win, "' does not match the scores (expected ", expected, ")");
    }
    if (v[8] < 0 || v[8] > 1000000) return error(i, "decisions: ", v[8], " is out of range");
    if (v[9] != 0 && v[9] != 1) return error(i, "capped: ", v[9], " is not 0 or 1");
    r.decisions = static_cast<int>(v[8]);
    r.capped = v[9] == 1;
    const std::string_view digest = fields[10];
    const auto [end, parsed] =
        std::from_chars(digest.data(), digest.data() + digest.size(), r.deal_digest, 16);
    if (digest.size() != 16 || parsed != std::errc() || end != digest.data() + digest.size()) {
      return error(i, "deal_digest: '", digest, "' is not 16 hexadecimal digits");
    }
    if (game % 2 == 1 && r.deal_digest != file.games.back().deal_digest) {
      return error(i, "deal_digest differs from game ", game - 1,
                   "'s: games 2k and 2k+1 are one deal with the seats swapped");
    }
    file.games.push_back(r);
  }
  if (file.games.empty()) return error(0, "no games after the header");
  return file;
}

absl::StatusOr<GamesFile> ReadGamesFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  return ParseGamesFile(*text, path);
}

}  // namespace lcfr::io
