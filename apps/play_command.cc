// lcfr play: a person plays Lost Cities in the terminal against a bot or a trained checkpoint.
#include <iostream>
#include <memory>
#include <string>

#include "apps/commands.h"
#include "base/strings.h"
#include "engine/card.h"
#include "engine/lost_cities.h"
#include "fmt/core.h"
#include "io/agent_protocol.h"
#include "nlohmann/json.hpp"
#include "play/bots.h"
#include "training/shipped_models.h"

namespace lcfr::apps {
namespace {

struct PlayOptions {
  std::string checkpoint;
  std::string model;
  bool bot_given = false;  // --bot on the command line
  PolicyOptions policy;
  SearchOptions search;
  std::string bot = "heuristic-balanced";
  std::string auto_bot;  // plays the person's seat (a demo; also how the command is tested)
  int seat = 0;
  uint64_t seed = 1;
  std::vector<std::string> rules;
};

std::string Expedition(const engine::Rules& rules, const engine::State& s, int player, int color) {
  std::string out;
  for (int i = 0; i < rules.cards_per_color(); ++i) {
    if (s.expedition[player][color] >> i & 1) {
      out += (out.empty() ? "" : " ") + engine::CardName(rules, engine::MakeCard(color, i));
    }
  }
  return out.empty() ? "-" : out;
}

// The board as the person in `seat` sees it.
void PrintBoard(const engine::LostCities& game, const engine::State& s, int seat) {
  const engine::Rules& rules = game.rules();
  fmt::print("\n---- decision {} | deck {} | score you {:+d}, opponent {:+d}\n", s.decisions,
             s.deck_size, engine::LostCities::Score(s, seat),
             engine::LostCities::Score(s, 1 - seat));
  fmt::print("  {:<6} {:<28} {:<10} {}\n", "color", "opponent's expedition", "pile top",
             "your expedition");
  for (int c = 0; c < rules.colors; ++c) {
    std::string top = "-";
    if (s.pile_size[c] > 0) {
      top = fmt::format("{} ({})",
                        engine::CardName(rules, engine::MakeCard(c, s.pile[c][s.pile_size[c] - 1])),
                        s.pile_size[c]);
    }
    fmt::print("  {:<6} {:<28} {:<10} {}\n", std::string(1, engine::kColorLetters[c]),
               Expedition(rules, s, 1 - seat, c), top, Expedition(rules, s, seat, c));
  }
  std::string hand;
  for (int i = 0; i < s.hand_count[seat]; ++i) {
    hand += (hand.empty() ? "" : " ") + engine::CardName(rules, s.hand[seat][i]);
  }
  fmt::print("  your hand: {}\n", hand);
}

// "play R7" / "p R7", "discard B*" / "d B*", "draw deck" / "deck", "draw G" / "g".
absl::StatusOr<int> ParseMove(const engine::LostCities& game, const engine::State& s,
                              const std::string& line) {
  std::string verb, arg;
  {
    std::istringstream in(line);
    in >> verb >> arg;
  }
  nlohmann::json move;
  if (verb == "play" || verb == "p") {
    move["play"] = arg;
  } else if (verb == "discard" || verb == "d") {
    move["discard"] = arg;
  } else if (verb == "draw") {
    move["draw"] = arg;
  } else if (verb == "deck") {
    move["draw"] = "deck";
  } else if (verb.size() == 1) {
    move["draw"] = std::string(1, static_cast<char>(std::toupper(verb[0])));
  } else {
    return absl::InvalidArgumentError(
        "expected 'play CARD', 'discard CARD', 'draw deck' or 'draw COLOR' (e.g. play R7)");
  }
  // What was typed may not be UTF-8: replaced, it names no card and is asked for again.
  return io::ActionFromProtocol(
      game, s, move.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

int RunPlay(const PlayOptions& opts) {
  const absl::StatusOr<engine::Rules> rules = RulesFromOverrides(opts.rules);
  if (!rules.ok()) {
    PrintError("play", std::string(rules.status().message()));
    return kExitBadInput;
  }
  // The opponent: a bot, a checkpoint's or a networks file's policy, or the shipped model of the
  // game's rules (training/shipped_models.h; rules no shipped model plays: the bot, said so), each
  // searching with --search or by its model's card.
  std::string model = opts.model;
  if (opts.model.empty() && opts.checkpoint.empty() && !opts.bot_given) {
    const absl::StatusOr<std::string> shipped = training::ShippedModelFor(*rules);
    if (shipped.ok()) {
      model = *shipped;
    } else {
      fmt::print(stderr, "lcfr play: {}; playing {} (--model or --checkpoint: another player)\n",
                 shipped.status().message(), opts.bot);
    }
  }
  absl::StatusOr<LoadedPlayer> loaded =
      LoadPlayer(opts.checkpoint, model, opts.bot, opts.policy, opts.search, *rules);
  if (!loaded.ok()) {
    PrintError("play", std::string(loaded.status().message()));
    return kExitBadInput;
  }
  std::unique_ptr<play::Bot> opponent = std::move(loaded->bot);
  const std::string opponent_name =
      loaded->searching ? loaded->name + " (" + loaded->summary + ")" : loaded->name;
  // A player bound to its model's rules plays those; --rule may only restate them.
  if (absl::Status fits = play::CheckPlayerRules(*opponent, *rules);
      !opts.rules.empty() && !fits.ok()) {
    PrintError("play", StrCat("--rule: ", fits.message()));
    return kExitBadInput;
  }
  const engine::Rules game_rules = loaded->rules;
  std::unique_ptr<play::Bot> autoplayer;
  if (!opts.auto_bot.empty()) {
    auto bot = play::MakeBot(opts.auto_bot);
    if (!bot.ok()) {
      PrintError("play", std::string(bot.status().message()));
      return kExitBadInput;
    }
    autoplayer = std::move(*bot);
  }
  const engine::LostCities game(game_rules);
  Rng rng(opts.seed);
  engine::State s = game.DealFromSeed(opts.seed);
  fmt::print(
      "Lost Cities against {}; you are player {} ({}). Moves: play R7, discard B*, "
      "draw deck, draw G; quit to stop.\n",
      opponent_name, opts.seat, opts.seat == 0 ? "you start" : "the opponent starts");
  while (!engine::LostCities::IsTerminal(s)) {
    int action;
    if (engine::LostCities::CurrentPlayer(s) != opts.seat) {
      action = opponent->ActOnState(game, s, rng);
      fmt::print("opponent: {}\n", game.ActionName(s, action));
    } else {
      PrintBoard(game, s, opts.seat);
      if (autoplayer) {
        action = autoplayer->ActOnState(game, s, rng);
        fmt::print("you ({}): {}\n", opts.auto_bot, game.ActionName(s, action));
      } else {
        while (true) {
          fmt::print("{} > ", s.phase == engine::Phase::kCard ? "play or discard" : "draw");
          std::fflush(stdout);
          std::string line;
          if (!std::getline(std::cin, line) || line == "quit" || line == "q") {
            fmt::print("\nstopped.\n");
            return kExitOk;
          }
          const absl::StatusOr<int> move = ParseMove(game, s, line);
          if (move.ok()) {
            action = *move;
            break;
          }
          fmt::print("  {}\n", move.status().message());
        }
      }
    }
    opponent->Observe(game, s, action, 1 - opts.seat);
    if (autoplayer) autoplayer->Observe(game, s, action, opts.seat);
    game.ApplyUnchecked(s, action);
  }
  PrintBoard(game, s, opts.seat);
  const int you = engine::LostCities::Score(s, opts.seat);
  const int them = engine::LostCities::Score(s, 1 - opts.seat);
  fmt::print("game over ({}): you {:+d}, opponent {:+d}: {}\n", engine::EndReasonName(s.end), you,
             them,
             you > them   ? "you win"
             : you < them ? "you lose"
                          : "a tie");
  return kExitOk;
}

}  // namespace

CommandFn AddPlayCommand(CLI::App& app) {
  auto opts = std::make_shared<PlayOptions>();
  CLI::App* sub = app.add_subcommand(
      "play", "Play Lost Cities in the terminal against a bot or a trained checkpoint.");
  sub->add_option("--checkpoint", opts->checkpoint,
                  "play against a trained policy (checkpoint or run directory)");
  CLI::Option* bot =
      sub->add_option("--bot", opts->bot,
                      "the bot to play against (without --bot, --checkpoint or --model: the "
                      "shipped model of "
                      "the rules, models/lost-cities.pt or models/lost-cities-6.pt, else this bot)")
          ->capture_default_str();
  sub->add_option("--model", opts->model,
                  "play against a networks file (e.g. models/lost-cities.pt), config beside it");
  sub->add_option("--seat", opts->seat, "your seat: 0 starts")
      ->check(CLI::Range(0, 1))
      ->capture_default_str();
  sub->add_option("--seed", opts->seed, "seed of the deal")
      ->check(NonNegativeInteger())
      ->capture_default_str();
  sub->add_option("--auto", opts->auto_bot, "let this bot play your seat (watch a game)");
  sub->add_option("--rule", opts->rules,
                  "rule override key=value (e.g. colors=6); a model plays only the rules it was "
                  "trained on");
  AddPolicyOptions(sub, &opts->policy);
  AddSearchOptions(sub, &opts->search, SearchCommand::kPlay);
  return [opts, bot] {
    if (opts->search.help_experimental) {
      PrintExperimentalSearchHelp("play", SearchCommand::kPlay);
      return kExitOk;
    }
    opts->bot_given = bot->count() > 0;
    if (opts->bot_given + !opts->checkpoint.empty() + !opts->model.empty() > 1) {
      PrintError("play", "--bot, --checkpoint and --model name the opponent: give one");
      return kExitBadInput;
    }
    return RunPlay(*opts);
  };
}

}  // namespace lcfr::apps
