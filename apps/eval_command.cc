// lcfr eval: a checkpoint's policy against a bot, batched, seat-alternating; with --search, the
// searching player (training/search.h).
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "apps/commands.h"
#include "engine/bots.h"
#include "engine/strings.h"
#include "fmt/core.h"
#include "inference/batched_evaluator.h"
#include "nlohmann/json.hpp"
#include "training/checkpoint.h"
#include "training/compose.h"
#include "training/evaluation.h"
#include "training/search.h"

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
  std::string games_out;  // --games-out: the games, one CSV row each (engine/games_file.h)
};

// The match's figures in the form both paths print (text or --json).
// `player` names the player in the text, `policy` in the JSON.
void PrintResult(const EvalOptions& opts, const std::string& source, const std::string& player,
                 const std::string& policy, const engine::MatchResult& result,
                 nlohmann::ordered_json extra) {
  const engine::Interval ci = result.win_rate_ci();
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
  if (extra.contains("search")) {
    const auto& x = extra["search"];
    fmt::print(
        "  search         {} decisions searched of {}, {:.1f}% left the policy's choice ({:.1f}% "
        "of card decisions, {:.1f}% of draws); {:.0f} rollouts each, {:.0f} ms mean, {:.0f} ms "
        "max; {:.0f} rollouts/s, {:.1f} rows per forward\n",
        x["searched"].get<int64_t>(), x["decisions"].get<int64_t>(),
        100 * x["deviation_rate"].get<double>(), 100 * x["card_deviation_rate"].get<double>(),
        100 * x["draw_deviation_rate"].get<double>(), x["rollouts_per_decision"].get<double>(),
        x["mean_ms"].get<double>(), x["max_ms"].get<double>(), x["rollouts_per_s"].get<double>(),
        x["rows_per_forward"].get<double>());
    if (x["belief_share"].get<double>() > 0) {
      fmt::print(
          "  belief         {:.0f}% of searched decisions; {:.1f} effective worlds; its worlds "
          "deal {:.1f}% of the opponent's unknown cards right, uniform worlds {:.1f}% ({:.1f}% "
          "and {:.1f}% from the 40th decision on; read from the true hand, a diagnostic)\n",
          100 * x["belief_share"].get<double>(), x["belief_ess"].get<double>(),
          100 * x["belief_hand_match"].get<double>(), 100 * x["uniform_hand_match"].get<double>(),
          100 * x["belief_hand_match_late"].get<double>(),
          100 * x["uniform_hand_match_late"].get<double>());
    }
    if (x["oracle_deck"].get<bool>()) {
      fmt::print(
          "  oracle deck    the search read the opponent's true hand and the deck's order "
          "(--oracle-hand --oracle-deck): a diagnostic that cheats, not a player's strength\n");
    } else if (x["oracle_hand"].get<bool>()) {
      fmt::print(
          "  oracle hand    the search read the opponent's true hand (--oracle-hand): a "
          "diagnostic that cheats, not a player's strength\n");
    }
  }
}

// lcfr eval --search: the searching player's games, `opts.workers` games at a time.
int RunSearchEval(const EvalOptions& opts, const training::CheckpointPolicy* policy,
                  const inference::InferenceConfig& inference) {
  training::Blueprint blueprint;
  engine::Rules rules;
  std::string source = opts.bot;
  if (policy != nullptr) {
    const absl::StatusOr<play::PlayPolicy> play = play::PlayPolicy::Parse(opts.policy.Name());
    if (!play.ok()) {
      PrintError("eval", std::string(play.status().message()));
      return kExitBadInput;
    }
    blueprint.play = *play;
    rules = policy->config.rules;
    blueprint.SetValue(policy->config.traversal.cfr);
    source = policy->directory;
  } else {
    blueprint.bot = opts.bot;
  }
  training::SearchConfig config = opts.search.config;
  config.workers = 1;  // a match searches one game per thread
  const bool model = policy != nullptr || config.rollouts_name_model();
  if (config.belief > 0 && config.belief_policy == "blueprint" && policy == nullptr) {
    PrintError("eval",
               "--belief needs --checkpoint or --model (the opponent's moves are weighed under "
               "the model's policy; --belief-policy opponent weighs them under the opponent's "
               "rollout policies)");
    return kExitBadInput;
  }
  if (model && policy == nullptr) {
    PrintError("eval",
               "model rollouts (--rollout-policy, --opponent-rollout-policy) need "
               "--checkpoint or --model");
    return kExitBadInput;
  }
  if (!config.rollout_model.empty() && policy == nullptr) {
    PrintError("eval", "--rollout-model needs --checkpoint or --model (the player's model)");
    return kExitBadInput;
  }
  if (!config.opponent_rollout_model.empty() && policy == nullptr) {
    PrintError("eval",
               "--opponent-rollout-model needs --checkpoint or --model (the player's model)");
    return kExitBadInput;
  }
  const engine::LostCities game(rules);
  // The rollout models (--rollout-model, --opponent-rollout-model), or none; the exit code, or 0.
  auto load_rollout_model = [&](const std::string& file, const std::string& flag,
                                std::shared_ptr<const inference::ModelStore>& store) {
    if (file.empty()) return 0;
    absl::StatusOr<std::shared_ptr<const inference::ModelStore>> rollout =
        LoadRolloutModel(file, rules, flag);
    if (!rollout.ok()) {
      PrintError("eval", std::string(rollout.status().message()));
      return kExitBadInput;
    }
    store = *std::move(rollout);
    return 0;
  };
  std::shared_ptr<const inference::ModelStore> rollout_store, opponent_rollout_store;
  if (int code = load_rollout_model(config.rollout_model, "--rollout-model", rollout_store)) {
    return code;
  }
  if (int code = load_rollout_model(config.opponent_rollout_model, "--opponent-rollout-model",
                                    opponent_rollout_store)) {
    return code;
  }
  // What every game thread's searching player will hold, refused before any of it is allocated.
  std::vector<const inference::ModelStore*> models;
  if (model) models.push_back(policy->store.get());
  for (const auto* s : {&rollout_store, &opponent_rollout_store}) {
    if (*s) models.push_back(s->get());
  }
  if (absl::Status fits =
          training::CheckSearchMemory(training::EstimateSearchBytes(config, opts.workers, models),
                                      "--workers (games at once) or --search-width");
      !fits.ok()) {
    PrintError("eval", std::string(fits.message()));
    return kExitBadInput;
  }
  // The evaluators: one per search worker of every game thread, and the "self" opponent's.
  const inference::InferenceConfig search_inference = training::ForSearch(inference, config);
  auto build = [&](std::shared_ptr<const inference::ModelStore> store, int count,
                   training::Evaluators& made, training::EvaluatorFactory& handed) {
    if (!store) return 0;
    absl::StatusOr<training::Evaluators> built =
        training::MakeEvaluators(std::move(store), search_inference, count);
    if (!built.ok()) {
      PrintError("eval", std::string(built.status().message()));
      return kExitFailure;
    }
    made = *std::move(built);
    handed = training::HandOut(made);
    return 0;
  };
  training::Evaluators evaluators, rollout_evaluators, opponent_rollout_evaluators;
  training::EvaluatorFactory factory, rollout_factory, opponent_rollout_factory;
  if (int code = build(model ? policy->store : nullptr, opts.workers * (config.workers + 1),
                       evaluators, factory)) {
    return code;
  }
  if (int code = build(rollout_store, opts.workers * config.workers, rollout_evaluators,
                       rollout_factory)) {
    return code;
  }
  if (int code = build(opponent_rollout_store, opts.workers * config.workers,
                       opponent_rollout_evaluators, opponent_rollout_factory)) {
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
  auto played = training::PlaySearchMatch(game, blueprint, config, factory, opts.opponent,
                                          opts.games, opts.seed, opts.workers, progress,
                                          rollout_factory, opponent_rollout_factory);
  if (!played.ok()) {
    PrintError("eval", std::string(played.status().message()));
    return kExitBadInput;
  }
  const training::SearchStats& st = played->search;
  nlohmann::ordered_json search;
  search["decisions"] = st.decisions;
  search["searched"] = st.searched;
  search["deviation_rate"] =
      st.searched ? static_cast<double>(st.deviations) / static_cast<double>(st.searched) : 0.0;
  // By phase: the card decisions' deviations and the draws' (the rest of the searched ones).
  const int64_t draw_searched = st.searched - st.card_searched;
  search["card_deviation_rate"] = st.card_searched ? static_cast<double>(st.card_deviations) /
                                                         static_cast<double>(st.card_searched)
                                                   : 0.0;
  search["draw_deviation_rate"] = draw_searched
                                      ? static_cast<double>(st.deviations - st.card_deviations) /
                                            static_cast<double>(draw_searched)
                                      : 0.0;
  search["rollouts_per_decision"] =
      st.searched ? static_cast<double>(st.rollouts) / static_cast<double>(st.searched) : 0.0;
  search["mean_ms"] = st.searched ? 1000 * st.seconds / static_cast<double>(st.searched) : 0.0;
  search["max_ms"] = 1000 * st.max_seconds;
  search["rollouts_per_s"] = st.seconds > 0 ? static_cast<double>(st.rollouts) / st.seconds : 0.0;
  search["rows_per_forward"] = st.rows_per_batch();
  // SearchStats::policy_calls holds the belief's calls too: with --belief this is above the
  // rollouts' own length.
  search["policy_calls_per_rollout"] =
      st.rollouts ? static_cast<double>(st.policy_calls) / static_cast<double>(st.rollouts) : 0.0;
  search["cut_share"] =
      st.rollouts ? static_cast<double>(st.cut) / static_cast<double>(st.rollouts) : 0.0;
  search["rollouts"] = config.rollouts;
  search["move_time_ms"] = config.move_time_ms;
  search["worlds"] = config.worlds;
  search["candidates"] = config.candidates;
  search["threshold"] = config.threshold;
  search["turn_draws"] = config.turn_draws;
  // The card decisions searched over card-and-draw pairs (--turn-draws), of all searched ones.
  search["turn_share"] =
      st.searched ? static_cast<double>(st.turn_searched) / static_cast<double>(st.searched) : 0.0;
  search["min_gain"] = config.min_gain;
  search["objective"] = config.objective;
  // The searched decisions that played for wins (--objective win: all; auto: its picks).
  search["win_objective_share"] =
      st.searched ? static_cast<double>(st.win_objective) / static_cast<double>(st.searched) : 0.0;
  search["allocation"] = config.allocation;
  search["drop_threshold"] = config.drop_threshold;
  search["rollout_depth"] = config.rollout_depth;
  search["belief"] = config.belief;
  search["belief_power"] = config.belief_power;
  search["belief_share"] =
      st.searched ? static_cast<double>(st.believed) / static_cast<double>(st.searched) : 0.0;
  search["belief_ess"] = st.mean_belief_ess();
  search["belief_policy"] = config.belief_policy;
  // What the belief knows of the opponent's hand (a diagnostic read from the true state): the
  // share of its worlds' unknown opponent cards that the opponent holds, and what uniform worlds
  // would score on the same decisions; the same from the game's 40th decision on.
  auto per = [](double sum, int64_t n) { return n ? sum / static_cast<double>(n) : 0.0; };
  search["belief_hand_match"] = per(st.belief_hand_match, st.hand_matched);
  search["uniform_hand_match"] = per(st.uniform_hand_match, st.hand_matched);
  search["belief_hand_match_late"] = per(st.belief_hand_match_late, st.hand_matched_late);
  search["uniform_hand_match_late"] = per(st.uniform_hand_match_late, st.hand_matched_late);
  search["oracle_hand"] = config.oracle_hand;
  search["oracle_deck"] = config.oracle_deck;
  search["rollout_model"] = config.rollout_model;
  search["opponent_rollout_model"] = config.opponent_rollout_model;
  search["rollout_policy"] = config.rollout_policy.empty() ? "self" : config.rollout_policy;
  search["opponent_rollout_policy"] = config.opponent_rollout_policy.empty()
                                          ? search["rollout_policy"].get<std::string>()
                                          : config.opponent_rollout_policy;
  search["opponent_worlds"] = config.opponent_worlds;
  // Opponent inference: each policy's mean posterior over the decisions that weighed them, and
  // over those from the game's 40th decision on.
  nlohmann::ordered_json inferred = nlohmann::ordered_json::object();
  if (config.infers_opponent()) {
    const std::vector<std::string> names = config.opponent_policies();
    inferred["decisions"] = st.inferred;
    nlohmann::ordered_json all = nlohmann::ordered_json::object(),
                           late = nlohmann::ordered_json::object();
    for (size_t i = 0; i < names.size(); ++i) {
      all[names[i]] = st.mean_opponent_posterior(i);
      late[names[i]] = st.mean_opponent_posterior(i, /*late=*/true);
    }
    inferred["posterior"] = all;
    inferred["posterior_late"] = late;
  }
  search["opponent_inference"] = inferred;
  nlohmann::ordered_json extra;
  extra["search"] = search;
  if (int code = WriteGamesOut("eval", std::move(games_out), played->match, opts.seed)) {
    return code;
  }
  const std::string name = "search over " + blueprint.Name();
  PrintResult(opts, source, name, name, played->match, extra);
  return kExitOk;
}

int RunEval(const EvalOptions& opts) {
  if (absl::Status status = CheckSearchOptions(opts.search); !status.ok()) {
    PrintError("eval", std::string(status.message()));
    return kExitBadInput;
  }
  if (!opts.bot.empty() && !opts.search.search) {
    PrintError("eval", "--bot plays only with --search (a bot against a bot: lcfr match)");
    return kExitBadInput;
  }
  if (opts.opponent == "self" && !opts.search.search) {
    PrintError("eval", "--opponent self (the player without search) needs --search");
    return kExitBadInput;
  }
  if (!opts.checkpoint.empty() + !opts.model.empty() + !opts.bot.empty() != 1) {
    PrintError("eval", opts.search.search ? "give one of --checkpoint, --model and --bot"
                                          : "give one of --checkpoint and --model");
    return kExitBadInput;
  }
  if (opts.opponent != "self" && !engine::MakeBot(opts.opponent).ok()) {
    PrintError("eval", StrCat("unknown opponent '", opts.opponent,
                              "' (known: ", fmt::format("{}", fmt::join(engine::BotNames(), ", ")),
                              opts.search.search ? ", self" : "", ")"));
    return kExitBadInput;
  }
  const absl::StatusOr<inference::Device> requested_device = inference::ParseDevice(opts.device);
  if (!requested_device.ok()) {
    PrintError("eval", StrCat("--device: ", requested_device.status().message()));
    return kExitBadInput;
  }
  // The device before anything else: cuda asked for and not there is refused whatever plays.
  inference::InferenceConfig inference;
  if (auto device = inference::ResolveDevice(*requested_device); device.ok()) {
    inference.device = *device;
  } else {
    PrintError("eval", StrCat("--device: ", device.status().message()));
    return kExitBadInput;
  }
  if (!opts.bot.empty()) {
    if (!engine::MakeBot(opts.bot).ok()) {
      PrintError("eval", StrCat("--bot: unknown bot '", opts.bot, "'"));
      return kExitBadInput;
    }
    return RunSearchEval(opts, nullptr, inference);
  }
  auto policy = opts.checkpoint.empty() ? training::LoadModelPolicy(opts.model)
                                        : training::LoadCheckpointPolicy(opts.checkpoint);
  if (!policy.ok()) {
    PrintError("eval", std::string(policy.status().message()));
    return kExitBadInput;
  }
  if (policy->config.run.game != training::GameId::kLostCities) {
    PrintError("eval",
               StrCat(policy->directory, ": a ", training::GameName(policy->config.run.game),
                      " checkpoint; its exact exploitability is in the run's metrics.jsonl"));
    return kExitBadInput;
  }
  if (opts.search.search) {
    if (!opts.network.empty()) {
      PrintError("eval", "--network names the player without search: drop it or --search");
      return kExitBadInput;
    }
    return RunSearchEval(opts, &*policy, inference);
  }
  const engine::LostCities game(policy->config.rules);
  auto store = policy->store;
  // --network names one network outright (diagnosis); --policy picks by seat.
  const int network = opts.network == "advantage0"   ? traversal::kAdvantageNetwork0
                      : opts.network == "advantage1" ? traversal::kAdvantageNetwork1
                      : opts.network == "strategy"   ? traversal::kStrategyNetwork
                                                     : -1;
  const absl::StatusOr<play::PlayPolicy> play = play::PlayPolicy::Parse(opts.policy.Name());
  if (!play.ok()) {
    PrintError("eval", std::string(play.status().message()));
    return kExitBadInput;
  }
  int opened = kExitOk;
  std::unique_ptr<AtomicFileWriter> games_out = OpenGamesOut("eval", opts.games_out, opened);
  if (opened != kExitOk) return opened;
  absl::StatusOr<training::Evaluators> evaluators =
      training::MakeEvaluators(store, inference, opts.workers);
  if (!evaluators.ok()) {
    PrintError("eval", std::string(evaluators.status().message()));
    return kExitFailure;
  }
  auto played = training::PlayNetworkMatch(game, training::HandOut(*evaluators), opts.opponent,
                                           opts.games, opts.seed, opts.workers, 64, *play, network);
  if (!played.ok()) {
    PrintError("eval", std::string(played.status().message()));
    return kExitFailure;
  }
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
  if (played->decisions > 0 &&
      (network == traversal::kAdvantageNetwork0 || network == traversal::kAdvantageNetwork1 ||
       (network < 0 && !(play->source == play::PlayPolicy::Source::kAverage)))) {
    extra["fallback_rate"] = played->fallback_rate();
  }
  if (int code = WriteGamesOut("eval", std::move(games_out), played->match, opts.seed)) {
    return code;
  }
  PrintResult(opts, policy->directory, opts.network.empty() ? play->Name() : opts.network,
              play->Name(), played->match, extra);
  return kExitOk;
}

}  // namespace

CommandFn AddEvalCommand(CLI::App& app) {
  auto opts = std::make_shared<EvalOptions>();
  CLI::App* sub = app.add_subcommand(
      "eval",
      "Play a checkpoint's policy (--policy, --greedy) against a bot: batched games on paired "
      "deals with seats swapped; win rate with a 95% Wilson interval, mean score difference. "
      "--search searches every decision (docs/search.md).");
  sub->add_option("--checkpoint", opts->checkpoint, "checkpoint or run directory");
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
  AddSearchOptions(sub, &opts->search, /*workers=*/false);
  opts->search.needs_search.push_back(sub->add_flag(
      "--oracle-hand", opts->search.config.oracle_hand,
      "a diagnostic that cheats: the search's worlds deal the opponent's true hand (only the "
      "deck's order is drawn), to measure what a perfect belief could gain; not a way to play"));
  opts->search.needs_search.push_back(sub->add_flag(
      "--oracle-deck", opts->search.config.oracle_deck,
      "with --oracle-hand, a diagnostic that cheats more: the deck's true order too, so the "
      "search knows every hidden card (a clairvoyant's bound on what better worlds could "
      "give); not a way to play"));
  sub->add_flag("--json", opts->json,
                "one JSON object: win_rate, ci_low, ci_high, mean_score_diff, games, ...");
  sub->add_option("--games-out", opts->games_out,
                  "also write the games to this CSV file, one row each (game, seed, deal, seat, "
                  "score, opponent_score, diff, win, decisions, capped), for lcfr compare: the "
                  "same --seed and --games with and without --search, compared game by game");
  return [opts] { return RunEval(*opts); };
}

}  // namespace lcfr::apps
