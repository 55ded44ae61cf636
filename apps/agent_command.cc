// lcfr agent: plays through the line-based JSON protocol of docs/agent_protocol.md.
#include <iostream>
#include <string>

#include "apps/commands.h"
#include "engine/agent_protocol.h"
#include "engine/bots.h"
#include "engine/strings.h"
#include "fmt/core.h"
#include "fmt/ranges.h"
#include "nlohmann/json.hpp"
#include "training/checkpoint.h"

namespace lcfr::apps {
namespace {

// Reads one line (without its '\n') into `line`; a line longer than `max_bytes` is consumed
// to its end but not kept, and `too_long` says so. False at the end of the input.
bool ReadLine(std::istream& in, size_t max_bytes, std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  std::streambuf* buffer = in.rdbuf();
  bool any = false;
  for (int c = buffer->sbumpc(); c != std::char_traits<char>::eof(); c = buffer->sbumpc()) {
    any = true;
    if (c == '\n') return true;
    if (too_long) continue;
    if (line.size() == max_bytes) {
      too_long = true;
      line.clear();
      continue;
    }
    line.push_back(static_cast<char>(c));
  }
  return any;
}

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
  // The player: a bot, a checkpoint's or a networks file's policy, or the shipped model.
  std::unique_ptr<engine::Bot> player;
  engine::Rules checkpoint_rules;
  // No player named: the shipped model (training::DefaultModelPath).
  const std::string model = opts.model.empty() && opts.checkpoint.empty() && !opts.bot_given
                                ? training::DefaultModelPath()
                                : opts.model;
  // A searching player answers only for the rules it was built for.
  bool fixed_rules = !opts.checkpoint.empty();
  if (opts.search.search) {
    SearchOptions search = opts.search;
    ApplyShippedModelSearchDefaults(model, search);
    auto loaded =
        LoadSearchingPlayer(opts.checkpoint, model, opts.bot, opts.policy, search, engine::Rules{});
    if (!loaded.ok()) {
      PrintError("agent", std::string(loaded.status().message()));
      return kExitBadInput;
    }
    checkpoint_rules = loaded->rules;
    player = std::move(loaded->bot);
    std::cerr << "[agent] " << loaded->name << ": " << SearchSummary(search.config, loaded->device)
              << std::endl;
    fixed_rules = true;
  } else if (!opts.checkpoint.empty() || !model.empty()) {
    auto bot = LoadNetworkPlayer(opts.checkpoint, model, opts.policy);
    if (!bot.ok()) {
      PrintError("agent", std::string(bot.status().message()));
      return kExitBadInput;
    }
    checkpoint_rules = (*bot)->rules();
    player = std::move(*bot);
  } else {
    auto bot = engine::MakeBot(opts.bot);
    if (!bot.ok()) {
      PrintError("agent", std::string(bot.status().message()));
      return kExitBadInput;
    }
    player = std::move(*bot);
  }
  engine::Rng rng(opts.seed);
  // A search that reads the game's moves (opponent inference, the belief) says once when a line
  // comes without them.
  const bool wants_moves =
      opts.search.search && (opts.search.config.infers_opponent() || opts.search.config.belief > 0);
  bool warned = false;
  std::string line;
  int line_no = 0;
  int errors = 0;
  bool too_long = false;
  while (ReadLine(std::cin, engine::kMaxProtocolLineBytes, line, too_long)) {
    ++line_no;
    if (too_long) {
      ++errors;
      const std::string message = StrCat("line ", line_no, ": longer than ",
                                         engine::kMaxProtocolLineBytes, " bytes (skipped)");
      std::cout << nlohmann::json{{"error", message}}.dump() << std::endl;
      PrintError("agent", message);
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const absl::StatusOr<engine::Observation> obs = engine::ParseObservation(line, rng);
    if (!obs.ok()) {
      ++errors;
      const std::string message = StrCat("line ", line_no, ": ", obs.status().message());
      std::cout << nlohmann::json{{"error", message}}.dump() << std::endl;
      PrintError("agent", message);
      continue;
    }
    if (fixed_rules && !(obs->rules == checkpoint_rules)) {
      ++errors;
      const std::string message = StrCat("line ", line_no, ": the rules differ from the ",
                                         opts.search.search ? "searching player's" : "checkpoint's",
                                         " (", engine::ToString(checkpoint_rules), ")");
      std::cout << nlohmann::json{{"error", message}}.dump() << std::endl;
      PrintError("agent", message);
      continue;
    }
    const engine::LostCities game(obs->rules);
    // The line's past, or none: a player never carries one line's game into the next.
    engine::TellHistory(game, *obs, *player);
    // A game under way (a line may leave out "decisions").
    const bool under_way = !game.IsDeal(obs->state);
    if (wants_moves && !obs->has_moves && under_way && !warned) {
      warned = true;
      std::cerr << "[agent] line " << line_no << " has no \"moves\": "
                << (opts.search.config.belief > 0 && opts.search.config.infers_opponent()
                        ? "opponent inference keeps its prior and the belief draws uniform worlds"
                    : opts.search.config.belief > 0 ? "the belief draws uniform worlds"
                                                    : "opponent inference keeps its prior")
                << " for lines without them (docs/agent_protocol.md, \"The game's moves\")"
                << std::endl;
    }
    const int action = player->ActOnState(game, obs->state, rng);
    std::cout << engine::ActionToProtocol(game, obs->state, action) << std::endl;
  }
  return errors == 0 ? kExitOk : kExitBadInput;
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
