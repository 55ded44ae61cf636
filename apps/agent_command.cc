// lcfr agent: plays through the line-based JSON protocol of docs/agent_protocol.md.
#include <iostream>
#include <string>

#include "apps/commands.h"
#include "engine/agent_server.h"
#include "engine/bots.h"
#include "engine/strings.h"
#include "fmt/core.h"
#include "fmt/ranges.h"
#include "training/checkpoint.h"

namespace lcfr::apps {
namespace {

struct AgentOptions {
  std::string bot = "heuristic-balanced";
  std::string checkpoint;
  std::string model;
  bool bot_given = false;  // --bot on the command line
  PolicyOptions policy{"current", false};
  SearchOptions search;
  uint64_t seed = 1;
};

int RunAgent(const AgentOptions& opts) {
  // The player: a bot, a checkpoint's or a networks file's policy, or the shipped model. A player
  // of a model answers only lines of the model's rules (engine::CheckPlayerRules, in ServeAgent).
  std::unique_ptr<engine::Bot> player;
  // No player named: the shipped model (training::DefaultModelPath).
  const std::string model = opts.model.empty() && opts.checkpoint.empty() && !opts.bot_given
                                ? training::DefaultModelPath()
                                : opts.model;
  if (opts.search.search) {
    SearchOptions search = opts.search;
    ApplyShippedModelSearchDefaults(model, search);
    auto loaded =
        LoadSearchingPlayer(opts.checkpoint, model, opts.bot, opts.policy, search, engine::Rules{});
    if (!loaded.ok()) {
      PrintError("agent", std::string(loaded.status().message()));
      return kExitBadInput;
    }
    player = std::move(loaded->bot);
    std::cerr << "[agent] " << loaded->name << ": " << SearchSummary(search.config, loaded->device)
              << std::endl;
  } else if (!opts.checkpoint.empty() || !model.empty()) {
    auto bot = LoadNetworkPlayer(opts.checkpoint, model, opts.policy);
    if (!bot.ok()) {
      PrintError("agent", std::string(bot.status().message()));
      return kExitBadInput;
    }
    player = std::move(*bot);
  } else {
    auto bot = engine::MakeBot(opts.bot);
    if (!bot.ok()) {
      PrintError("agent", std::string(bot.status().message()));
      return kExitBadInput;
    }
    player = std::move(*bot);
  }
  engine::AgentServerOptions serve;
  serve.seed = opts.seed;
  // A search that reads the game's moves (opponent inference, the belief) says once when a line
  // comes without them.
  const training::SearchConfig& c = opts.search.config;
  if (opts.search.search && (c.infers_opponent() || c.belief > 0)) {
    serve.missing_moves_note =
        StrCat(c.belief > 0 && c.infers_opponent()
                   ? "opponent inference keeps its prior and the belief draws uniform worlds"
               : c.belief > 0 ? "the belief draws uniform worlds"
                              : "opponent inference keeps its prior",
               " for lines without them (docs/agent_protocol.md, \"The game's moves\")");
  }
  const engine::AgentServerResult served =
      engine::ServeAgent(std::cin, std::cout, std::cerr, *player, serve);
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
                  fmt::join(engine::BotNames(), ", ")));
  cmd->add_option("--model", opts->model,
                  "a networks file (e.g. models/lost-cities.pt), with its config beside it");
  cmd->add_option("--checkpoint", opts->checkpoint,
                  "serve a trained policy (--policy, --greedy) instead of a bot (a checkpoint or "
                  "run directory)");
  cmd->add_option("--seed", opts->seed, "seed of the player's randomness")
      ->check(NonNegativeInteger())
      ->capture_default_str();
  AddPolicyOptions(cmd, &opts->policy);
  opts->search.config.workers = 2;  // both cores of the machine the default budget is sized for
  AddSearchOptions(cmd, &opts->search, /*workers=*/true);
  return [opts, bot] {
    opts->bot_given = bot->count() > 0;
    if (absl::Status status = CheckSearchOptions(opts->search); !status.ok()) {
      PrintError("agent", std::string(status.message()));
      return kExitBadInput;
    }
    if (opts->bot_given + !opts->checkpoint.empty() + !opts->model.empty() > 1) {
      PrintError("agent", "--bot, --checkpoint and --model name the player: give one");
      return kExitBadInput;
    }
    return RunAgent(*opts);
  };
}

}  // namespace lcfr::apps
