// lcfr eval: a model's or checkpoint's policy against a bot, batched, seat-alternating; with
// --search (or where the model's card searches), the searching player (search/match.h).
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "base/strings.h"
#include "fmt/core.h"
#include "fmt/ranges.h"
#include "inference/batched_evaluator.h"
#include "nlohmann/json.hpp"
#include "play/bots.h"
#include "play/network_match.h"
#include "search/match.h"
#include "training/checkpoint.h"
#include "training/compose.h"
#include "training/shipped_models.h"

namespace lcfr::apps {
namespace {

struct EvalOptions {
  std::string checkpoint;
  std::string model;
  std::string opponent = "heuristic-cautious";
  int games = 1000;
  uint64_t seed = 1;
  int workers = 2;
  std::string device = "cpu";
  std::string network;
  PolicyOptions policy;
  SearchOptions search;
  std::string bot;  // with --search: the searching player's blueprint instead of a model
  bool json = false;
  std::string games_out;           // --games-out: the games, one CSV row each (io/games_file.h)
  std::vector<std::string> rules;  // --rule key=value: the game's rules (the model's must match)
};

// The match's figures in the form both paths print (text or --json). `player` names the player
// in the text, `policy` in the JSON; `extra`: more JSON keys, `more_text`: more lines.
void PrintResult(const EvalOptions& opts, const std::string& source, const std::string& player,
                 const std::string& policy, const play::MatchResult& result,
                 const nlohmann::ordered_json& extra, const std::string& more_text) {
  const play::Interval ci = result.win_rate_ci();
  if (opts.json) {
    nlohmann::ordered_json j;
    j["win_rate"] = result.win_rate();
    j["ci_low"] = ci.low;
    j["ci_high"] = ci.high;
    j["mean_score_diff"] = result.mean_score_diff();
    j["games"] = result.games;
    j["opponent"] = opts.opponent;
    j["capped"] = result.capped;
    j["policy"] = policy;
    j["colors_opened"] = result.colors_opened_per_game();
    j["score_per_color"] = result.score_per_opened_color();
    j["positive_share"] = result.positive_share();
    j["wagers_below_cost"] = result.wagers_below_cost_per_game();
    for (auto& [key, value] : extra.items()) j[key] = value;
    j["checkpoint"] = source;
    fmt::print("{}\n", j.dump());
    return;
  }
  fmt::print("{} ({}) vs {}: {} games, seat-alternating on paired deals, seed {}\n", source, player,
             opts.opponent, result.games, opts.seed);
  fmt::print("  win rate       {:.3f}  [{:.3f}, {:.3f}] 95% Wilson (ties count half)\n",
             result.win_rate(), ci.low, ci.high);
  fmt::print("  W / L / T      {} / {} / {}\n", result.wins, result.losses, result.ties);
  fmt::print("  score diff     {:+.1f} +- {:.1f} (95%)\n", result.mean_score_diff(),
             result.score_diff_ci_half_width());
  fmt::print("  capped games   {}\n", result.capped);
  fmt::print(
      "  expeditions    {:.2f} opened per game, {:+.1f} points each, {:.0f}% positive, "
      "{:.2f} wagered below cost per game\n",
      result.colors_opened_per_game(), result.score_per_opened_color(),
      100 * result.positive_share(), result.wagers_below_cost_per_game());
  fmt::print("{}", more_text);
}

// The evaluators `store` needs for `count` players (none without a store); the exit code, or 0.
int BuildEvaluators(std::shared_ptr<const inference::ModelStore> store,
                    const inference::InferenceConfig& inference, int count,
                    training::Evaluators& made, traversal::EvaluatorFactory& handed) {
  if (!store) return 0;
  absl::StatusOr<training::Evaluators> built =
      training::MakeEvaluators(std::move(store), inference, count);
  if (!built.ok()) {
    PrintError("eval", std::string(built.status().message()));
    return kExitFailure;
  }
  made = *std::move(built);
  handed = training::HandOut(made);
  return 0;
}

// lcfr eval --search: the searching player's games on `rules`, `opts.workers` games at a time,
// over `source` (null: over the bot --bot names; RunEval checked that a model plays `rules`).
int RunSearchEval(const EvalOptions& opts, const SearchOptions& options,
                  const NetworkSource* source, const engine::Rules& rules,
                  const inference::InferenceConfig& inference) {
  search::Blueprint blueprint;
  std::string name = opts.bot;
  if (source != nullptr) {
    blueprint.play = source->play;
    blueprint.SetValue(source->policy.config.traversal.cfr);
    name = source->policy.directory;
  } else {
    blueprint.bot = opts.bot;
  }
  search::SearchConfig config = options.config;
  config.workers = 1;  // a match searches one game per thread
  const bool model = source != nullptr || config.rollouts_name_model();
  if (source == nullptr && (model || config.belief > 0 || !config.rollout_model.empty())) {
    PrintError("eval", StrCat(!config.rollout_model.empty() ? "--rollout-model needs"
                              : config.belief > 0           ? "--belief needs"
                                                            : "model rollouts (--rollout-policy, "
                                                              "--opponent-rollout-policy) need",
                              " --checkpoint or --model (the player's model)"));
    return kExitBadInput;
  }
  const engine::LostCities game(rules);
  std::shared_ptr<const inference::ModelStore> rollout_store;
  if (!config.rollout_model.empty()) {
    absl::StatusOr<std::shared_ptr<const inference::ModelStore>> rollouts =
        LoadRolloutModel(config.rollout_model, rules);
    if (!rollouts.ok()) {
      PrintError("eval", std::string(rollouts.status().message()));
      return kExitBadInput;
    }
    rollout_store = *std::move(rollouts);
  }
  // What every game thread's searching player will hold, refused before any of it is allocated.
  std::vector<const inference::ModelStore*> models;
  if (model) models.push_back(source->policy.store.get());
  if (rollout_store) models.push_back(rollout_store.get());
  if (absl::Status fits =
          training::CheckSearchMemory(training::EstimateSearchBytes(config, opts.workers, models),
                                      "--workers (games at once) or --search-width");
      !fits.ok()) {
    PrintError("eval", std::string(fits.message()));
    return kExitBadInput;
  }
  // The evaluators: one per search worker of every game thread, and the "self" opponent's.
  const inference::InferenceConfig search_inference = training::ForSearch(inference, config);
  training::Evaluators evaluators, rollout_evaluators;
  traversal::EvaluatorFactory factory, rollout_factory;
  if (int code = BuildEvaluators(model ? source->policy.store : nullptr, search_inference,
                                 opts.workers * (config.workers + 1), evaluators, factory)) {
    return code;
  }
  if (int code = BuildEvaluators(rollout_store, search_inference, opts.workers * config.workers,
                                 rollout_evaluators, rollout_factory)) {
    return code;
  }
  int opened = kExitOk;
  std::unique_ptr<AtomicFileWriter> games_out = OpenGamesOut("eval", opts.games_out, opened);
  if (opened != kExitOk) return opened;
  const auto start = std::chrono::steady_clock::now();
  const int step = std::max(1, opts.games / 20);
  auto progress = [&](int done) {
    if (done % step != 0 && done != opts.games) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print(stderr, "[eval] {}/{} games, {:.0f} s, about {:.0f} s to go\n", done, opts.games,
               elapsed, elapsed / done * (opts.games - done));
  };
  auto played = search::PlaySearchMatch(game, blueprint, config, factory, opts.opponent, opts.games,
                                        opts.seed, opts.workers, progress, rollout_factory);
  if (!played.ok()) {
    PrintError("eval", std::string(played.status().message()));
    return kExitBadInput;
  }
  if (int code = WriteGamesOut("eval", std::move(games_out), played->match, opts.seed)) {
    return code;
  }
  nlohmann::ordered_json extra;
  extra["search"] = played->search.ToJson(config);
  const std::string player = "search over " + blueprint.Name();
  PrintResult(opts, name, player, player, played->match, extra, played->search.ToText(config));
  return kExitOk;
}

// Refusals that need no file.
int CheckEvalOptions(const EvalOptions& opts) {
  if (!opts.bot.empty() && !opts.search.search) {
    PrintError("eval", "--bot plays only with --search (a bot against a bot: lcfr match)");
    return kExitBadInput;
  }
  if (!opts.checkpoint.empty() + !opts.model.empty() + !opts.bot.empty() > 1) {
    PrintError("eval", opts.search.search ? "give one of --checkpoint, --model and --bot"
                                          : "give one of --checkpoint and --model");
    return kExitBadInput;
  }
  if (opts.opponent != "self" && !play::MakeBot(opts.opponent).ok()) {
    PrintError("eval", StrCat("unknown opponent '", opts.opponent,
                              "' (known: ", fmt::format("{}", fmt::join(play::BotNames(), ", ")),
                              ", self with --search)"));
    return kExitBadInput;
  }
  return kExitOk;
}

int RunEval(const EvalOptions& opts) {
  if (int code = CheckEvalOptions(opts)) return code;
  // The device before anything else: cuda asked for and not there is refused whatever plays.
  inference::InferenceConfig inference;
  absl::StatusOr<inference::Device> device = inference::ParseDevice(opts.device);
  if (device.ok()) device = inference::ResolveDevice(*device);
  if (!device.ok()) {
    PrintError("eval", StrCat("--device: ", device.status().message()));
    return kExitBadInput;
  }
  inference.device = *device;
  const absl::StatusOr<engine::Rules> rules = RulesFromOverrides(opts.rules);
  if (!rules.ok()) {
    PrintError("eval", std::string(rules.status().message()));
    return kExitBadInput;
  }
  SearchOptions search = opts.search;
  if (!opts.bot.empty()) {
    if (!play::MakeBot(opts.bot).ok()) {
      PrintError("eval", StrCat("--bot: unknown bot '", opts.bot, "'"));
      return kExitBadInput;
    }
    if (absl::Status status = CheckSearchOptions(search); !status.ok()) {
      PrintError("eval", std::string(status.message()));
      return kExitBadInput;
    }
    return RunSearchEval(opts, search, nullptr, *rules, inference);
  }
  // The player: --checkpoint, --model, or the shipped model of the game's rules (--rule).
  std::string model = opts.model;
  if (opts.checkpoint.empty() && opts.model.empty()) {
    const absl::StatusOr<std::string> shipped = training::ShippedModelFor(*rules);
    if (!shipped.ok()) {
      PrintError("eval",
                 StrCat(shipped.status().message(), " (--model or --checkpoint: another player)"));
      return kExitBadInput;
    }
    model = *shipped;
  }
  absl::StatusOr<NetworkSource> source = LoadNetworkSource(opts.checkpoint, model, opts.policy);
  if (!source.ok()) {
    PrintError("eval", std::string(source.status().message()));
    return kExitBadInput;
  }
  // A model plays the rules it was trained on; --rule may only restate them.
  if (absl::Status fits = play::CheckPlayerRules(source->policy.config.rules, *rules);
      !opts.rules.empty() && !fits.ok()) {
    PrintError("eval", StrCat("--rule: ", fits.message()));
    return kExitBadInput;
  }
  ApplyCard(source->policy.config.play, source->card_dir, search);
  if (absl::Status status = CheckSearchOptions(search); !status.ok()) {
    PrintError("eval", std::string(status.message()));
    return kExitBadInput;
  }
  if (opts.opponent == "self" && !search.search) {
    PrintError("eval", "--opponent self (the player without search) needs --search");
    return kExitBadInput;
  }
  if (search.search) {
    if (!opts.network.empty()) {
      PrintError("eval", "--network names the player without search: drop it or --no-search");
      return kExitBadInput;
    }
    return RunSearchEval(opts, search, &*source, source->policy.config.rules, inference);
  }
  const engine::LostCities game(source->policy.config.rules);
  // --network names one network outright (diagnosis); --policy picks by seat.
  const int network = opts.network == "advantage0"   ? traversal::kAdvantageNetwork0
                      : opts.network == "advantage1" ? traversal::kAdvantageNetwork1
                      : opts.network == "strategy"   ? traversal::kStrategyNetwork
                                                     : -1;
  const play::PlayPolicy play = source->play;
  int opened = kExitOk;
  std::unique_ptr<AtomicFileWriter> games_out = OpenGamesOut("eval", opts.games_out, opened);
  if (opened != kExitOk) return opened;
  training::Evaluators evaluators;
  traversal::EvaluatorFactory factory;
  if (int code =
          BuildEvaluators(source->policy.store, inference, opts.workers, evaluators, factory)) {
    return code;
  }
  auto played = play::PlayNetworkMatch(game, factory, opts.opponent, opts.games, opts.seed,
                                       opts.workers, 64, play, network);
  if (!played.ok()) {
    PrintError("eval", std::string(played.status().message()));
    return kExitFailure;
  }
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
  if (played->decisions > 0 &&
      (network == traversal::kAdvantageNetwork0 || network == traversal::kAdvantageNetwork1 ||
       (network < 0 && play.source != play::PlayPolicy::Source::kAverage))) {
    extra["fallback_rate"] = played->fallback_rate();
  }
  if (int code = WriteGamesOut("eval", std::move(games_out), played->match, opts.seed)) {
    return code;
  }
  PrintResult(opts, source->policy.directory, opts.network.empty() ? play.Name() : opts.network,
              play.Name(), played->match, extra, "");
  return kExitOk;
}

}  // namespace

CommandFn AddEvalCommand(CLI::App& app) {
  auto opts = std::make_shared<EvalOptions>();
  CLI::App* sub = app.add_subcommand(
      "eval",
      "Play a model's or checkpoint's policy (--policy, --greedy; default: the model card's) "
      "against a bot: batched games on paired deals with seats swapped; win rate with a 95% "
      "Wilson interval, mean score difference. --search searches every decision "
      "(docs/search.md).");
  sub->add_option("--checkpoint", opts->checkpoint,
                  "checkpoint or run directory (without --checkpoint, --model or --bot: the "
                  "shipped model of the rules, models/lost-cities.pt or models/lost-cities-6.pt)");
  sub->add_option("--rule", opts->rules,
                  "rule override key=value (e.g. colors=6): the game's rules; a model plays only "
                  "the rules it was trained on");
  sub->add_option("--model", opts->model,
                  "a networks file (e.g. models/lost-cities.pt), with its config beside it");
  sub->add_option("--opponent", opts->opponent,
                  "the bot to play; with --search also self: the player without search")
      ->capture_default_str();
  sub->add_option("--bot", opts->bot,
                  "with --search: search over this bot instead of a model (e.g. "
                  "heuristic-balanced)");
  sub->add_option("--games", opts->games, "games (pairs of deals, seats swapped)")
      ->check(CLI::Range(2, 100000000))
      ->capture_default_str();
  sub->add_option("--seed", opts->seed, "seed of the deals")
      ->check(NonNegativeInteger())
      ->capture_default_str();
  sub->add_option("--workers", opts->workers,
                  "threads (with --search: games played at once, each searched on its thread)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  sub->add_option("--device", opts->device, "cpu, cuda or auto")->capture_default_str();
  AddPolicyOptions(sub, &opts->policy);
  sub->add_option("--network", opts->network,
                  "one network plays both seats, overriding --policy's choice: strategy, or "
                  "advantage0 / advantage1 (a player's current regret-matching strategy, for "
                  "diagnosis)")
      ->check(CLI::IsMember({"strategy", "advantage0", "advantage1"}));
  AddSearchOptions(sub, &opts->search, SearchCommand::kEval);
  sub->add_flag("--json", opts->json,
                "one JSON object: win_rate, ci_low, ci_high, mean_score_diff, games, ...");
  sub->add_option("--games-out", opts->games_out,
                  "also write the games to this CSV file, one row each (game, seed, deal, seat, "
                  "score, opponent_score, diff, win, decisions, capped, deal_digest), for lcfr "
                  "compare: the same --seed and --games with and without --search, compared game "
                  "by game");
  return [opts] {
    if (opts->search.help_experimental) {
      PrintExperimentalSearchHelp("eval", SearchCommand::kEval);
      return kExitOk;
    }
    return RunEval(*opts);
  };
}

}  // namespace lcfr::apps
