// lcfr ladder: a round robin of named players (bots, models and checkpoints with a policy, any
// of them searching) on paired deals, every game kept in DIR/games.csv, and Bradley-Terry
// ratings on one scale (play/ladder.h) as a table, JSON, CSV and a PNG.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "apps/commands.h"
#include "apps/gnuplot.h"
#include "base/atomic_file.h"
#include "base/files.h"
#include "base/rng.h"
#include "base/strings.h"
#include "fmt/core.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "nlohmann/json.hpp"
#include "play/ladder.h"
#include "play/match.h"

namespace lcfr::apps {
namespace {

struct LadderOptions {
  std::string dir;
  std::vector<std::string> players;  // NAME=SPEC
  int games = 400;
  uint64_t seed = 1;
  CLI::Option* seed_option = nullptr;  // to tell a given --seed from the default
  std::string anchor;
  std::vector<std::string> rules;
  int workers = 2;
  bool quiet = false;
};

// A player of the ladder: its name and what it is (PlayerSpec's grammar).
struct LadderPlayer {
  std::string name;
  std::string spec;
};

// SPEC: bot:NAME | model:FILE | checkpoint:DIR, then optionally ,policy=current|average,
// ,greedy (with a policy) and ,search.
struct PlayerSpec {
  std::string bot, model, checkpoint;
  PolicyOptions policy;
  bool search = false;
};

absl::StatusOr<PlayerSpec> ParseSpec(const LadderPlayer& player) {
  const std::string where = fmt::format("--player {}={}", player.name, player.spec);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t comma = player.spec.find(',', start);
    parts.push_back(player.spec.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  PlayerSpec spec;
  const size_t colon = parts[0].find(':');
  const std::string kind = parts[0].substr(0, colon);
  const std::string value = colon == std::string::npos ? "" : parts[0].substr(colon + 1);
  if (value.empty() || (kind != "bot" && kind != "model" && kind != "checkpoint")) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: expected bot:NAME, model:FILE or checkpoint:DIR, then ,policy=current|average, "
        ",greedy and ,search as wanted",
        where));
  }
  (kind == "bot" ? spec.bot : kind == "model" ? spec.model : spec.checkpoint) = value;
  for (size_t k = 1; k < parts.size(); ++k) {
    const std::string& p = parts[k];
    if (p == "policy=current" || p == "policy=average") {
      spec.policy.policy = p.substr(7);
    } else if (p == "greedy") {
      spec.policy.greedy = true;
    } else if (p == "search") {
      spec.search = true;
    } else {
      return absl::InvalidArgumentError(fmt::format(
          "{}: '{}' is not policy=current, policy=average, greedy or search", where, p));
    }
  }
  if (!spec.bot.empty() && (!spec.policy.policy.empty() || spec.policy.greedy)) {
    return absl::InvalidArgumentError(fmt::format("{}: a bot has no network policy", where));
  }
  if (spec.policy.greedy && spec.policy.policy.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: greedy needs the policy it plays (policy=current or average)", where));
  }
  return spec;
}

absl::StatusOr<LoadedPlayer> Load(const LadderPlayer& player, const engine::Rules& rules) {
  absl::StatusOr<PlayerSpec> spec = ParseSpec(player);
  if (!spec.ok()) return spec.status();
  SearchOptions search;
  search.search = spec->search;
  search.no_search = !spec->search;  // a model card's search only where the spec asks
  absl::StatusOr<LoadedPlayer> loaded =
      LoadPlayer(spec->checkpoint, spec->model, spec->bot, spec->policy, search, rules);
  if (!loaded.ok()) {
    return absl::Status(loaded.status().code(),
                        fmt::format("--player {}: {}", player.name, loaded.status().message()));
  }
  if (absl::Status s = play::CheckPlayerRules(*loaded->bot, rules); !s.ok()) {
    return absl::InvalidArgumentError(fmt::format("--player {}: {}", player.name, s.message()));
  }
  return loaded;
}

// 64-bit FNV-1a of a name: the pair's deals follow from the ladder's seed and the two names, so
// that adding players or games never changes the deals of games already played.
uint64_t NameHash(const std::string& name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// DIR/ladder.json: {"seed", "rules" (the overrides), "anchor" ("" = the first player),
// "players": [{"name", "spec"}]}.
struct LadderFile {
  uint64_t seed = 1;
  std::vector<std::string> rules;
  std::string anchor;
  std::vector<LadderPlayer> players;
};

absl::StatusOr<LadderFile> ReadLadderFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  LadderFile file;
  try {
    file.seed = j.at("seed").get<uint64_t>();
    file.rules = j.at("rules").get<std::vector<std::string>>();
    file.anchor = j.value("anchor", std::string());
    for (const auto& p : j.at("players")) {
      file.players.push_back({p.at("name").get<std::string>(), p.at("spec").get<std::string>()});
    }
  } catch (const std::exception&) {
    return absl::InvalidArgumentError(
        fmt::format("{}: expected {{\"seed\", \"rules\", \"anchor\", \"players\": [{{\"name\", "
                    "\"spec\"}}]}}",
                    path));
  }
  return file;
}

std::string LadderFileJson(const LadderFile& file) {
  nlohmann::ordered_json j;
  j["seed"] = file.seed;
  j["rules"] = file.rules;
  j["anchor"] = file.anchor;
  j["players"] = nlohmann::ordered_json::array();
  for (const LadderPlayer& p : file.players)
    j["players"].push_back({{"name", p.name}, {"spec", p.spec}});
  return j.dump(2) + "\n";
}

bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// The ladder's players: those of ladder.json, then the new ones of --player (a name given again
// must have the same spec).
absl::Status MergePlayers(const LadderOptions& opts, LadderFile& file) {
  for (const std::string& given : opts.players) {
    const size_t eq = given.find('=');
    LadderPlayer p{given.substr(0, eq), eq == std::string::npos ? "" : given.substr(eq + 1)};
    if (eq == std::string::npos || !ValidName(p.name) || p.spec.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "--player '{}': expected NAME=SPEC, NAME of letters, digits, '-', '_' and '.'", given));
    }
    const auto same = std::find_if(file.players.begin(), file.players.end(),
                                   [&](const LadderPlayer& q) { return q.name == p.name; });
    if (same == file.players.end()) {
      file.players.push_back(p);
    } else if (same->spec != p.spec) {
      return absl::InvalidArgumentError(fmt::format(
          "--player {}: the ladder already has {} as '{}' (a new player needs a new name)", p.name,
          p.name, same->spec));
    }
  }
  if (file.players.size() < 2) {
    return absl::InvalidArgumentError("a ladder needs at least two players (--player NAME=SPEC)");
  }
  return absl::OkStatus();
}

// The games still to play: per pair (names in ladder order), the indices below `games` that
// games.csv does not hold.
struct Pairing {
  int a = 0, b = 0;
  std::vector<int> missing;
};

std::vector<Pairing> Missing(const LadderFile& file, const std::vector<play::LadderGame>& played,
                             int games) {
  std::set<std::tuple<std::string, std::string, int>> have;
  for (const play::LadderGame& g : played) have.insert({g.a, g.b, g.game});
  std::vector<Pairing> out;
  const int n = static_cast<int>(file.players.size());
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      Pairing p{a, b, {}};
      for (int g = 0; g < games; ++g) {
        if (!have.count({file.players[a].name, file.players[b].name, g})) p.missing.push_back(g);
      }
      if (!p.missing.empty()) out.push_back(std::move(p));
    }
  }
  return out;
}

// Plays every missing game on `workers` threads (each with its own players), appending rows to
// `out` as games finish. Errors: a player that cannot be loaded.
absl::Status PlayMissing(const LadderOptions& opts, const LadderFile& file,
                         const engine::Rules& rules, const std::vector<Pairing>& pairings,
                         std::FILE* out) {
  std::vector<std::pair<const Pairing*, int>> work;
  for (const Pairing& p : pairings) {
    for (int g : p.missing) work.push_back({&p, g});
  }
  const engine::LostCities game(rules);
  std::mutex mutex;
  size_t next = 0, done = 0;
  absl::Status failure = absl::OkStatus();
  const auto start = std::chrono::steady_clock::now();
  auto last_report = start;
  auto worker = [&] {
    std::map<int, LoadedPlayer> players;  // this thread's own
    while (true) {
      std::pair<const Pairing*, int> item;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next >= work.size() || !failure.ok()) return;
        item = work[next++];
      }
      const Pairing& p = *item.first;
      for (int k : {p.a, p.b}) {
        if (players.count(k)) continue;
        absl::StatusOr<LoadedPlayer> loaded = Load(file.players[k], rules);
        if (!loaded.ok()) {
          std::lock_guard<std::mutex> lock(mutex);
          if (failure.ok()) failure = loaded.status();
          return;
        }
        players.emplace(k, *std::move(loaded));
      }
      const std::string& a = file.players[p.a].name;
      const std::string& b = file.players[p.b].name;
      const uint64_t seed = DeriveSeed({file.seed, NameHash(a), NameHash(b)});
      const play::GameOutcome o =
          play::PlayMatchGame(game, *players.at(p.a).bot, *players.at(p.b).bot, item.second, seed);
      const int seat_a = play::SeatOfA(item.second);
      const play::LadderGame row{a,
                                 b,
                                 item.second,
                                 o.scores[seat_a],
                                 o.scores[1 - seat_a],
                                 o.decisions,
                                 o.end == engine::EndReason::kDecisionCap};
      std::lock_guard<std::mutex> lock(mutex);
      const std::string text = play::LadderGameRow(row);
      std::fwrite(text.data(), 1, text.size(), out);
      std::fflush(out);
      ++done;
      const auto now = std::chrono::steady_clock::now();
      if (!opts.quiet && (now - last_report > std::chrono::seconds(10) || done == work.size())) {
        last_report = now;
        const double secs = std::chrono::duration<double>(now - start).count();
        fmt::print(stderr, "ladder: {}/{} games, {:.0f} games/s\n", done, work.size(),
                   static_cast<double>(done) / std::max(secs, 1e-9));
      }
    }
  };
  std::vector<std::thread> threads;
  for (int w = 0; w < opts.workers; ++w) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  return failure;
}

absl::Status WriteRatings(const std::string& dir, const std::vector<play::Rating>& ratings,
                          const std::string& anchor) {
  nlohmann::ordered_json j;
  j["anchor"] = anchor;
  j["ratings"] = nlohmann::ordered_json::array();
  std::string csv = "name,elo,low,high,games,score\n";
  for (const play::Rating& r : ratings) {
    j["ratings"].push_back({{"name", r.name},
                            {"elo", r.elo},
                            {"low", r.low},
                            {"high", r.high},
                            {"games", r.games},
                            {"score", r.score}});
    csv += fmt::format("{},{:.1f},{:.1f},{:.1f},{},{:.4f}\n", r.name, r.elo, r.low, r.high, r.games,
                       r.score);
  }
  if (absl::Status s = WriteFileAtomically(dir + "/ratings.json", j.dump(2) + "\n"); !s.ok()) {
    return s;
  }
  if (absl::Status s = WriteFileAtomically(dir + "/ratings.csv", csv); !s.ok()) return s;
  if (!GnuplotAvailable()) return absl::OkStatus();
  GnuplotChart chart;
  chart.height = 120 + 40 * static_cast<int>(ratings.size());
  std::string data, labels;
  for (size_t i = 0; i < ratings.size(); ++i) {
    const play::Rating& r = ratings[i];
    data += fmt::format("{} {} {} {}\n", r.elo, i, r.low, r.high);
    labels += fmt::format("{}'{}' {}", labels.empty() ? "" : ", ", GnuplotLabel(r.name), i);
  }
  chart.data.emplace_back("ratings.dat", data);
  chart.script = fmt::format(
      "set grid x\nset title 'Bradley-Terry ratings (Elo, 95% intervals; {} = 0)'\n"
      "set xlabel 'Elo'\nset ytics ({})\nset yrange [-0.5:{}]\nunset key\n"
      "plot 'ratings.dat' u 1:2:3:4 w xerrorbars pt 7 ps 1.5",
      GnuplotLabel(anchor), labels, static_cast<double>(ratings.size()) - 0.5);
  return RenderPng(chart, dir + "/ratings.png");
}

int RunLadder(const LadderOptions& opts) {
  const std::string json_path = opts.dir + "/ladder.json";
  const std::string games_path = opts.dir + "/games.csv";
  LadderFile file;
  const bool exists = PathExists(json_path);
  if (exists) {
    absl::StatusOr<LadderFile> read = ReadLadderFile(json_path);
    if (!read.ok()) {
      PrintError("ladder", std::string(read.status().message()));
      return kExitBadInput;
    }
    file = *read;
    if (opts.seed_option->count() > 0 && opts.seed != file.seed) {
      PrintError("ladder", fmt::format("--seed {}: the ladder in {} was started with seed {}",
                                       opts.seed, opts.dir, file.seed));
      return kExitBadInput;
    }
    if (!opts.rules.empty() && opts.rules != file.rules) {
      PrintError("ladder",
                 fmt::format("--rule: the ladder in {} has its own rules ({})", opts.dir,
                             file.rules.empty() ? std::string("classic")
                                                : fmt::format("{}", fmt::join(file.rules, " "))));
      return kExitBadInput;
    }
  } else {
    file.seed = opts.seed;
    file.rules = opts.rules;
  }
  if (absl::Status s = MergePlayers(opts, file); !s.ok()) {
    PrintError("ladder", std::string(s.message()));
    return kExitBadInput;
  }
  const absl::StatusOr<engine::Rules> rules = RulesFromOverrides(file.rules);
  if (!rules.ok()) {
    PrintError("ladder", std::string(rules.status().message()));
    return kExitBadInput;
  }
  // Every player loads (and plays these rules) before anything is written.
  for (const LadderPlayer& p : file.players) {
    if (absl::StatusOr<LoadedPlayer> loaded = Load(p, *rules); !loaded.ok()) {
      PrintError("ladder", std::string(loaded.status().message()));
      return kExitBadInput;
    }
  }
  if (!opts.anchor.empty()) file.anchor = opts.anchor;  // kept for the next runs
  const std::string anchor = file.anchor.empty() ? file.players[0].name : file.anchor;
  if (std::none_of(file.players.begin(), file.players.end(),
                   [&](const LadderPlayer& p) { return p.name == anchor; })) {
    PrintError("ladder", fmt::format("--anchor {}: not a player of the ladder", anchor));
    return kExitBadInput;
  }
  std::vector<play::LadderGame> played;
  if (exists && PathExists(games_path)) {
    absl::StatusOr<std::vector<play::LadderGame>> read = play::ReadLadderGames(games_path);
    if (!read.ok()) {
      PrintError("ladder", std::string(read.status().message()));
      return kExitBadInput;
    }
    played = *std::move(read);
  }
  if (absl::Status s = MakeDirectories(opts.dir); !s.ok()) {
    PrintError("ladder", std::string(s.message()));
    return kExitFailure;
  }
  if (absl::Status s = WriteFileAtomically(json_path, LadderFileJson(file)); !s.ok()) {
    PrintError("ladder", std::string(s.message()));
    return kExitFailure;
  }
  // games.csv: rewritten whole (without a row a kill cut), then appended to.
  std::string kept = std::string(play::kLadderGamesHeader) + "\n";
  for (const play::LadderGame& g : played) kept += play::LadderGameRow(g);
  if (absl::Status s = WriteFileAtomically(games_path, kept); !s.ok()) {
    PrintError("ladder", std::string(s.message()));
    return kExitFailure;
  }
  const std::vector<Pairing> missing = Missing(file, played, opts.games);
  if (!missing.empty()) {
    std::FILE* out = std::fopen(games_path.c_str(), "a");
    if (out == nullptr) {
      PrintError("ladder", fmt::format("{}: cannot append to it", games_path));
      return kExitFailure;
    }
    const absl::Status s = PlayMissing(opts, file, *rules, missing, out);
    std::fclose(out);
    if (!s.ok()) {
      PrintError("ladder", std::string(s.message()));
      return kExitBadInput;
    }
    absl::StatusOr<std::vector<play::LadderGame>> reread = play::ReadLadderGames(games_path);
    if (!reread.ok()) {
      PrintError("ladder", std::string(reread.status().message()));
      return kExitFailure;
    }
    played = *std::move(reread);
  }
  std::vector<std::string> names;
  for (const LadderPlayer& p : file.players) names.push_back(p.name);
  absl::StatusOr<std::vector<play::Rating>> ratings = play::BradleyTerry(names, played, anchor);
  if (!ratings.ok()) {
    PrintError("ladder", std::string(ratings.status().message()));
    return kExitBadInput;
  }
  std::sort(ratings->begin(), ratings->end(),
            [](const play::Rating& x, const play::Rating& y) { return x.elo > y.elo; });
  fmt::print("Bradley-Terry ratings in Elo ({} = 0), 95% intervals; {} games in {}\n", anchor,
             played.size(), games_path);
  fmt::print("{:<24} {:>8} {:>18} {:>7} {:>7}\n", "player", "elo", "95% interval", "games",
             "score");
  for (const play::Rating& r : *ratings) {
    const std::string interval =
        r.name == anchor ? std::string("(anchor)") : fmt::format("[{:.0f}, {:.0f}]", r.low, r.high);
    fmt::print("{:<24} {:>8.0f} {:>18} {:>7} {:>7.3f}\n", r.name, r.elo, interval, r.games,
               r.score);
  }
  if (absl::Status s = WriteRatings(opts.dir, *ratings, anchor); !s.ok()) {
    PrintError("ladder", std::string(s.message()));
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

CommandFn AddLadderCommand(CLI::App& app) {
  auto opts = std::make_shared<LadderOptions>();
  CLI::App* sub = app.add_subcommand(
      "ladder",
      "A round robin of named players on paired deals (seats swapped), every game kept in "
      "DIR/games.csv (run it again to resume, to add players or games), and Bradley-Terry "
      "ratings in Elo with 95% intervals: printed, and written to DIR/ratings.json, .csv, .png.");
  sub->add_option("dir", opts->dir, "the ladder's directory")->required();
  sub->add_option("--player", opts->players,
                  "NAME=SPEC (repeatable), SPEC one of bot:BOT, model:FILE, checkpoint:DIR, "
                  "followed by ,policy=current|average ,greedy ,search as wanted; players "
                  "already in the ladder need not be named again");
  sub->add_option("--games", opts->games, "games per pair, in all (even: paired deals)")
      ->capture_default_str()
      ->check(CLI::Range(2, 10000000));
  opts->seed_option =
      sub->add_option("--seed", opts->seed, "the deals' seed (fixed when the ladder starts)")
          ->capture_default_str()
          ->check(NonNegativeInteger());
  sub->add_option("--anchor", opts->anchor,
                  "the player rated 0, kept for later runs (default: the first player)");
  sub->add_option("--rule", opts->rules, "a rule key=value (repeatable; fixed when it starts)");
  sub->add_option("--workers", opts->workers, "threads playing games")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  sub->add_flag("--quiet", opts->quiet, "no progress output");
  return [opts] {
    if (opts->games % 2 != 0) {
      PrintError("ladder", fmt::format("--games {}: an even number (paired deals)", opts->games));
      return kExitBadInput;
    }
    return RunLadder(*opts);
  };
}

}  // namespace lcfr::apps
