// lcfr agent: plays through the line-based JSON protocol of docs/agent_protocol.md.
#include <iostream>
#include <string>

#include "apps/commands.h"
#include "base/strings.h"
#include "fmt/core.h"
#include "fmt/ranges.h"
#include "io/agent_server.h"
#include "play/bots.h"
#include "search/config.h"
#include "training/checkpoint.h"

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

int RunAgent(const AgentOptions& opts) {
  // The player: a bot, a checkpoint's or a networks file's policy, or the shipped model; each
  // searching with --search or where the model's card says so. A player of a model answers only
  // lines of the model's rules (play::CheckPlayerRules, in ServeAgent).
  const std::string model = opts.model.empty() && opts.checkpoint.empty() && !opts.bot_given
                                ? training::DefaultModelPath()
                                : opts.model;
  absl::StatusOr<LoadedPlayer> loaded =
      LoadPlayer(opts.checkpoint, model, opts.bot, opts.policy, opts.search, engine::Rules{});
  if (!loaded.ok()) {
    PrintError("agent", std::string(loaded.status().message()));
    return kExitBadInput;
  }
  if (loaded->searching)
    std::cerr << "[agent] " << loaded->name << ": " << loaded->summary << std::endl;
  io::AgentServerOptions serve;
  serve.seed = opts.seed;
  // A search that reads the game's moves (opponent inference, the belief) says once when a line
  // comes without them.
  const search::SearchConfig& c = opts.search.config;
  if (loaded->searching && (c.infers_opponent() || c.belief > 0)) {
    serve.missing_moves_note =
        StrCat(c.belief > 0 && c.infers_opponent()
                   ? "opponent inference keeps its prior and the belief draws uniform worlds"
               : c.belief > 0 ? "the belief draws uniform worlds"
                              : "opponent inference keeps its prior",
               " for lines without them (docs/agent_protocol.md, \"The game's moves\")");
  }
  const io::AgentServerResult served =
      io::ServeAgent(std::cin, std::cout, std::cerr, *loaded->bot, serve);
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
      fmt::format("the player: {} (without --bot, --checkpoint or --model: the shipped model, "
                  "models/lost-cities.pt)",
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
