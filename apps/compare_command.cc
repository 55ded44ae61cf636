// lcfr compare A.csv B.csv: two matches' games (lcfr eval / lcfr match --games-out) on the same
// deals and seats, compared game by game: each one's win rate and mean score difference, and A's
// lead over B in both with a paired 95% interval (io/games_file.h, play/match.h).
#include <memory>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "base/strings.h"
#include "fmt/core.h"
#include "io/games_file.h"
#include "nlohmann/json.hpp"
#include "play/match.h"

namespace lcfr::apps {

std::unique_ptr<AtomicFileWriter> OpenGamesOut(const std::string& command, const std::string& path,
                                               int& exit_code) {
  exit_code = kExitOk;
  if (path.empty()) return nullptr;
  auto writer = std::make_unique<AtomicFileWriter>(path);
  if (!writer->status().ok()) {
    PrintError(command, StrCat("--games-out: ", writer->status().message()));
    exit_code = kExitBadInput;
    return nullptr;
  }
  return writer;
}

int WriteGamesOut(const std::string& command, std::unique_ptr<AtomicFileWriter> writer,
                  const play::MatchResult& result, uint64_t seed) {
  if (writer == nullptr) return kExitOk;
  const std::string text = io::GamesFileText(result, seed);
  writer->Write(text.data(), text.size());
  if (absl::Status status = writer->Commit(); !status.ok()) {
    PrintError(command, StrCat("--games-out: ", status.message()));
    return kExitFailure;
  }
  return kExitOk;
}

namespace {

struct CompareOptions {
  std::string a;
  std::string b;
  bool json = false;
};

struct Summary {
  double win_rate = 0;
  play::Interval ci;
  double mean_score_diff = 0;
};

// One file's figures from its per-game wins (1, 0.5, 0) and score differences.
Summary Summarize(const std::vector<double>& win, const std::vector<double>& diff) {
  double wins = 0, diffs = 0;
  for (size_t g = 0; g < win.size(); ++g) wins += win[g], diffs += diff[g];
  const double n = static_cast<double>(win.size());
  return {wins / n, play::WilsonInterval(wins, n), diffs / n};
}

int RunCompare(const CompareOptions& opts) {
  io::GamesFile files[2];
  const std::string* paths[2] = {&opts.a, &opts.b};
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<io::GamesFile> read = io::ReadGamesFile(*paths[i]);
    if (!read.ok()) {
      PrintError("compare", std::string(read.status().message()));
      return kExitBadInput;
    }
    files[i] = *std::move(read);
  }
  if (files[0].seed != files[1].seed) {
    PrintError("compare", StrCat(opts.a, " has seed ", files[0].seed, " and ", opts.b, " seed ",
                                 files[1].seed, ": their deals differ, so they cannot be paired"));
    return kExitBadInput;
  }
  if (files[0].games.size() != files[1].games.size()) {
    PrintError("compare",
               StrCat(opts.a, " has ", files[0].games.size(), " games and ", opts.b, " ",
                      files[1].games.size(), ": pair matches of the same --games (and --seed)"));
    return kExitBadInput;
  }
  // The same deals, game by game: the same seed and count of another rule set are other deals.
  for (size_t g = 0; g < files[0].games.size(); ++g) {
    if (files[0].games[g].deal_digest != files[1].games[g].deal_digest) {
      PrintError("compare",
                 StrCat("game ", g, " was dealt differently in ", opts.a, " and ", opts.b,
                        " (other rules, or another build's deals): they are not the same deals, "
                        "so they cannot be paired"));
      return kExitBadInput;
    }
  }
  if (files[0].games.size() < 2) {
    PrintError("compare", StrCat(opts.a, " and ", opts.b, " hold ", files[0].games.size(),
                                 " game: an interval needs two games or more"));
    return kExitBadInput;
  }
  std::vector<double> win[2], diff[2];
  for (int i = 0; i < 2; ++i) {
    for (const play::GameResult& r : files[i].games) {
      win[i].push_back(r.win());
      diff[i].push_back(r.score_a - r.score_b);
    }
  }
  int a_only = 0, b_only = 0;  // games one of them won and the other lost
  for (size_t g = 0; g < win[0].size(); ++g) {
    a_only += win[0][g] == 1.0 && win[1][g] == 0.0;
    b_only += win[1][g] == 1.0 && win[0][g] == 0.0;
  }
  const play::PairedDifference dw = play::PairedDifferenceOf(win[0], win[1]);
  const play::PairedDifference ds = play::PairedDifferenceOf(diff[0], diff[1]);
  const Summary s[2] = {Summarize(win[0], diff[0]), Summarize(win[1], diff[1])};
  const int games = static_cast<int>(files[0].games.size());
  if (opts.json) {
    nlohmann::ordered_json j;
    j["games"] = games;
    j["seed"] = files[0].seed;
    for (int i = 0; i < 2; ++i) {
      nlohmann::ordered_json side;
      side["file"] = *paths[i];
      side["win_rate"] = s[i].win_rate;
      side["ci_low"] = s[i].ci.low;
      side["ci_high"] = s[i].ci.high;
      side["mean_score_diff"] = s[i].mean_score_diff;
      j[i == 0 ? "a" : "b"] = side;
    }
    j["win_rate_diff"] = dw.mean;
    j["win_rate_diff_low"] = dw.low;
    j["win_rate_diff_high"] = dw.high;
    j["score_diff_diff"] = ds.mean;
    j["score_diff_diff_low"] = ds.low;
    j["score_diff_diff_high"] = ds.high;
    j["a_won_b_lost"] = a_only;
    j["b_won_a_lost"] = b_only;
    fmt::print("{}\n", j.dump());
    return kExitOk;
  }
  fmt::print("{} games on the same deals and seats, seed {}\n", games, files[0].seed);
  for (int i = 0; i < 2; ++i) {
    fmt::print("  {}  {}: win rate {:.3f} [{:.3f}, {:.3f}] 95% Wilson, score diff {:+.1f}\n",
               i == 0 ? "A" : "B", *paths[i], s[i].win_rate, s[i].ci.low, s[i].ci.high,
               s[i].mean_score_diff);
  }
  fmt::print("  A - B win rate   {:+.3f}  [{:+.3f}, {:+.3f}] 95%, paired by game\n", dw.mean,
             dw.low, dw.high);
  fmt::print("  A - B score diff {:+.1f}  [{:+.1f}, {:+.1f}] 95%, paired by game\n", ds.mean,
             ds.low, ds.high);
  fmt::print("  games A won and B lost {}, B won and A lost {}\n", a_only, b_only);
  return kExitOk;
}

}  // namespace

CommandFn AddCompareCommand(CLI::App& app) {
  auto opts = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare two matches played on the same deals and seats (the games files of lcfr eval or "
      "lcfr match --games-out, the same --seed and --games), game by game: each one's win rate "
      "and mean score difference, and A's lead over B with a paired 95% interval (e.g. a model "
      "with --search as A and without as B: what the search adds).");
  cmd->add_option("a", opts->a, "games file A (--games-out)")->required();
  cmd->add_option("b", opts->b, "games file B, the same deals")->required();
  cmd->add_flag("--json", opts->json,
                "one JSON object: games, seed, a and b (file, win_rate, ci_low, ci_high, "
                "mean_score_diff), win_rate_diff (A - B) with win_rate_diff_low and _high, "
                "score_diff_diff with its _low and _high, a_won_b_lost, b_won_a_lost");
  return [opts] { return RunCompare(*opts); };
}

}  // namespace lcfr::apps
