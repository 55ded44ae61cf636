// lcfr agent: plays through the line-based JSON protocol of docs/agent_protocol.md.
#include <iostream>
#include <map>
#include <string>
#include <utility>

#include "apps/commands.h"
#include "base/strings.h"
#include "fmt/core.h"
#include "fmt/ranges.h"
#include "io/agent_server.h"
#include "play/bots.h"
#include "search/config.h"
#include "training/checkpoint.h"
#include "training/shipped_models.h"

namespace lcfr::apps {
namespace {

struct AgentOptions {
  std::string bot = "heuristic-balanced";
  std::string checkpoint;
  std::string model;
  bool bot_given = false;  // --bot on the command line
  PolicyOptions policy;
  SearchOptions search;
  uint64_t seed = 1;
};

// The default player: the shipped model of each line's rules (training/shipped_models.h), loaded
// the first time a line of those rules comes; a line of rules no shipped model plays is refused,
// naming them and the shipped models.
class ShippedPlayers {
 public:
  explicit ShippedPlayers(const AgentOptions& opts) : opts_(opts) {}

  absl::StatusOr<LoadedPlayer*> Load(const engine::Rules& rules) {
    const std::string key = engine::ToString(rules);
    auto it = players_.find(key);
    if (it == players_.end()) {
      absl::StatusOr<LoadedPlayer> loaded = LoadFor(rules);
      if (loaded.ok() && !players_.empty()) {
        std::cerr << "[agent] lines of the rules (" << key << "): " << loaded->name
                  << (loaded->searching ? ": " + loaded->summary : "") << std::endl;
      }
      it = players_.emplace(key, std::move(loaded)).first;
    }
    if (!it->second.ok()) return it->second.status();
    return &*it->second;
  }

 private:
  absl::StatusOr<LoadedPlayer> LoadFor(const engine::Rules& rules) const {
    const absl::StatusOr<std::string> model = training::ShippedModelFor(rules);
    if (!model.ok()) {
      return absl::NotFoundError(
          StrCat(model.status().message(), " (--model, --checkpoint or --bot serves other rules)"));
    }
    return LoadPlayer("", *model, opts_.bot, opts_.policy, opts_.search, rules);
  }

  const AgentOptions& opts_;
  std::map<std::string, absl::StatusOr<LoadedPlayer>> players_;  // by the rules' ToString
};

int RunAgent(const AgentOptions& opts) {
  // The player: a bot, a checkpoint's or a networks file's policy, or the shipped models; each
  // searching with --search or where the model's card says so. A player of a model answers only
  // lines of the model's rules (play::CheckPlayerRules); the shipped models, lines of the rules
  // one of them plays. The classic rules' model loads first, so that a broken install stops here.
  const bool shipped = opts.model.empty() && opts.checkpoint.empty() && !opts.bot_given;
  ShippedPlayers shipped_players(opts);
  absl::StatusOr<LoadedPlayer> given;
  absl::StatusOr<LoadedPlayer*> first = absl::UnknownError("");
  if (shipped) {
    first = shipped_players.Load(engine::Rules{});
  } else {
    given = LoadPlayer(opts.checkpoint, opts.model, opts.bot, opts.policy, opts.search,
                       engine::Rules{});
    first = given.ok() ? absl::StatusOr<LoadedPlayer*>(&*given) : given.status();
  }
  if (!first.ok()) {
    PrintError("agent", std::string(first.status().message()));
    return kExitBadInput;
  }
  const LoadedPlayer& loaded = **first;
  if (loaded.searching)
    std::cerr << "[agent] " << loaded.name << ": " << loaded.summary << std::endl;
  io::AgentServerOptions serve;
  serve.seed = opts.seed;
  // A search that reads the game's moves (opponent inference, the belief) says once when a line
  // comes without them.
  const search::SearchConfig& c = opts.search.config;
  if (loaded.searching && (c.infers_opponent() || c.belief > 0)) {
    serve.missing_moves_note =
        StrCat(c.belief > 0 && c.infers_opponent()
                   ? "opponent inference keeps its prior and the belief draws uniform worlds"
               : c.belief > 0 ? "the belief draws uniform worlds"
                              : "opponent inference keeps its prior",
               " for lines without them (docs/agent_protocol.md, \"The game's moves\")");
  }
  io::AgentServerResult served;
  if (shipped) {
    served = io::ServeAgent(
        std::cin, std::cout, std::cerr,
        [&shipped_players](const engine::Rules& rules) -> absl::StatusOr<play::Bot*> {
          absl::StatusOr<LoadedPlayer*> player = shipped_players.Load(rules);
          if (!player.ok()) return player.status();
          return (*player)->bot.get();
        },
        serve);
  } else {
    served = io::ServeAgent(std::cin, std::cout, std::cerr, *given->bot, serve);
  }
  return served.errors == 0 ? kExitOk : kExitBadInput;
}

}  // namespace

CommandFn AddAgentCommand(CLI::App& app) {
  auto opts = std::make_shared<AgentOptions>();
  CLI::App* cmd = app.add_subcommand(
      "agent",
      "Serve a player over stdin/stdout: one JSON decision per line in, one JSON action per "
      "line out ({\"play\":\"R7\"}, {\"discard\":\"B*\"}, {\"draw\":\"deck\"}, "
      "{\"draw\":\"G\"}). A line may carry the game's moves (\"moves\"), which the search's "
      "opponent inference and belief read. A bad line gets {\"error\":...} and the agent goes "
      "on; the exit code is 2 if any line was bad. See docs/agent_protocol.md.");
  CLI::Option* bot = cmd->add_option(
      "--bot", opts->bot,
      fmt::format("the player: {} (without --bot, --checkpoint or --model: the shipped model "
                  "of each line's rules, models/lost-cities.pt or models/lost-cities-6.pt)",
                  fmt::join(play::BotNames(), ", ")));
  cmd->add_option("--model", opts->model,
                  "a networks file (e.g. models/lost-cities.pt), with its config beside it");
  cmd->add_option("--checkpoint", opts->checkpoint,
                  "serve a trained policy (--policy, --greedy) instead of a bot (a checkpoint or "
                  "run directory)");
  cmd->add_option("--seed", opts->seed, "seed of the player's randomness")
      ->check(NonNegativeInteger())
      ->capture_default_str();
  AddPolicyOptions(cmd, &opts->policy);
  AddSearchOptions(cmd, &opts->search, SearchCommand::kAgent);
  return [opts, bot] {
    if (opts->search.help_experimental) {
      PrintExperimentalSearchHelp("agent", SearchCommand::kAgent);
      return kExitOk;
    }
    opts->bot_given = bot->count() > 0;
    if (opts->bot_given + !opts->checkpoint.empty() + !opts->model.empty() > 1) {
      PrintError("agent", "--bot, --checkpoint and --model name the player: give one");
      return kExitBadInput;
    }
    return RunAgent(*opts);
  };
}

}  // namespace lcfr::apps
