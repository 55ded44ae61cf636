// lcfr match A B: seat-alternating games between two bots.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "apps/commands.h"
#include "base/strings.h"
#include "fmt/core.h"
#include "fmt/ranges.h"
#include "nlohmann/json.hpp"
#include "play/bots.h"
#include "play/match.h"

namespace lcfr::apps {
namespace {

struct MatchOptions {
  std::string a;
  std::string b;
  int games = 1000;
  uint64_t seed = 1;
  std::vector<std::string> rules;
  bool json = false;
  std::string games_out;
};

int RunMatch(const MatchOptions& opts) {
  const absl::StatusOr<engine::Rules> rules = RulesFromOverrides(opts.rules);
  if (!rules.ok()) {
    PrintError("match", std::string(rules.status().message()));
    return kExitBadInput;
  }
  auto a = play::MakeBot(opts.a);
  auto b = play::MakeBot(opts.b);
  for (const auto* bot : {&a, &b}) {
    if (!bot->ok()) {
      PrintError("match", std::string(bot->status().message()));
      return kExitBadInput;
    }
  }
  const engine::LostCities game(*rules);
  int opened = kExitOk;
  std::unique_ptr<AtomicFileWriter> games_out = OpenGamesOut("match", opts.games_out, opened);
  if (opened != kExitOk) return opened;
  // Progress on stderr for long matches: a live counter on a terminal, plain lines otherwise.
  const bool tty = isatty(fileno(stderr)) != 0;
  const auto start = std::chrono::steady_clock::now();
  auto last = start;
  auto progress = [&](int done) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::seconds(tty ? 1 : 10) && done != opts.games) return;
    if (now - start < std::chrono::seconds(2)) return;  // short matches stay quiet
    last = now;
    const double secs = std::chrono::duration<double>(now - start).count();
    fmt::print(stderr, "{}match: {}/{} games, {:.0f} games/s{}", tty ? "\r" : "", done, opts.games,
               done / secs, tty && done != opts.games ? "" : "\n");
  };
  const play::MatchResult r = play::PlayMatch(game, **a, **b, opts.games, opts.seed, progress);
  if (int code = WriteGamesOut("match", std::move(games_out), r, opts.seed)) return code;
  const play::Interval ci = r.win_rate_ci();
  if (opts.json) {
    nlohmann::ordered_json j;
    j["a"] = opts.a;
    j["b"] = opts.b;
    j["games"] = r.games;
    j["wins"] = r.wins;
    j["losses"] = r.losses;
    j["ties"] = r.ties;
    j["win_rate"] = r.win_rate();
    j["ci_low"] = ci.low;
    j["ci_high"] = ci.high;
    j["mean_score_diff"] = r.mean_score_diff();
    j["mean_score_a"] = r.games ? r.score_a_sum / r.games : 0.0;
    j["mean_score_b"] = r.games ? r.score_b_sum / r.games : 0.0;
    j["mean_decisions"] = r.mean_decisions();
    j["capped"] = r.capped;
    j["seed"] = opts.seed;
    std::cout << j.dump() << std::endl;
    return kExitOk;
  }
  fmt::print("{} vs {}: {} games, seat-alternating on paired deals, seed {}\n", opts.a, opts.b,
             r.games, opts.seed);
  fmt::print("  rules          {}\n", engine::ToString(*rules));
  fmt::print("  win rate of A  {:.3f}  [{:.3f}, {:.3f}] 95% Wilson (ties count half)\n",
             r.win_rate(), ci.low, ci.high);
  fmt::print("  W / L / T      {} / {} / {}\n", r.wins, r.losses, r.ties);
  fmt::print("  mean scores    A {:+.1f}   B {:+.1f}\n", r.games ? r.score_a_sum / r.games : 0.0,
             r.games ? r.score_b_sum / r.games : 0.0);
  fmt::print("  score diff     {:+.1f} +- {:.1f} (95%)\n", r.mean_score_diff(),
             r.score_diff_ci_half_width());
  fmt::print("  mean length    {:.1f} decisions\n", r.mean_decisions());
  fmt::print("  capped games   {} (cut at max_decisions = {})\n", r.capped, rules->max_decisions);
  return kExitOk;
}

}  // namespace

CommandFn AddMatchCommand(CLI::App& app) {
  auto opts = std::make_shared<MatchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "match",
      "Play N games between two bots, seats alternating on paired deals (games 2k and 2k+1 "
      "share a deal), and print A's win rate with a 95% Wilson interval, the mean score "
      "difference, the mean game length and the games cut at max_decisions.");
  const std::string names = fmt::format("{}", fmt::join(play::BotNames(), ", "));
  cmd->add_option("a", opts->a, "bot A: " + names)->required();
  cmd->add_option("b", opts->b, "bot B: " + names)->required();
  cmd->add_option("-n,--games", opts->games, "number of games")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000000));
  cmd->add_option("--seed", opts->seed, "seed of the deals and the bots' randomness")
      ->check(NonNegativeInteger())
      ->capture_default_str();
  cmd->add_option("--rule", opts->rules,
                  "rule override key=value, repeatable (e.g. --rule colors=6 --rule "
                  "max_decisions=500); keys as in game records");
  cmd->add_flag("--json", opts->json,
                "print one JSON object (a, b, games, wins, losses, ties, win_rate, ci_low, "
                "ci_high, mean_score_diff, mean_score_a, mean_score_b, mean_decisions, "
                "capped, seed)");
  cmd->add_option("--games-out", opts->games_out,
                  "also write the games to this CSV file, one row each, A's view (game, seed, "
                  "deal, seat, score, opponent_score, diff, win, decisions, capped), for lcfr "
                  "compare");
  return [opts] { return RunMatch(*opts); };
}

}  // namespace lcfr::apps
