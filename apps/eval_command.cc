// lcfr eval: a checkpoint's strategy network against a bot, batched, seat-alternating.
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
  bool json = false;
};

int RunEval(const EvalOptions& opts) {
  if (opts.checkpoint.empty() == opts.model.empty()) {
    PrintError("eval", "give one of --checkpoint and --model");
    return kExitBadInput;
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
  if (!engine::MakeBot(opts.opponent).ok()) {
    PrintError("eval", StrCat("unknown opponent '", opts.opponent, "' (known: ",
                              fmt::format("{}", fmt::join(engine::BotNames(), ", ")), ")"));
    return kExitBadInput;
  }
  const absl::StatusOr<inference::Device> requested = inference::ParseDevice(opts.device);
  if (!requested.ok()) {
    PrintError("eval", StrCat("--device: ", requested.status().message()));
    return kExitBadInput;
  }
  inference::InferenceConfig inference;
  if (auto device = inference::ResolveDevice(*requested); device.ok()) {
    inference.device = *device;
  } else {
    PrintError("eval", std::string(device.status().message()));
    return kExitBadInput;
  }
  const engine::LostCities game(policy->config.rules);
  auto store = policy->store;
  // --network names one network outright (diagnosis); --policy picks by seat.
  const int network = opts.network == "advantage0"   ? traversal::kAdvantageNetwork0
                      : opts.network == "advantage1" ? traversal::kAdvantageNetwork1
                      : opts.network == "strategy"   ? traversal::kStrategyNetwork
                                                     : -1;
  const absl::StatusOr<training::PlayPolicy> play = training::PlayPolicy::Parse(opts.policy.Name());
  if (!play.ok()) {
    PrintError("eval", std::string(play.status().message()));
    return kExitBadInput;
  }
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
  const engine::MatchResult* result = &played->match;
  const engine::Interval ci = result->win_rate_ci();
  if (opts.json) {
    nlohmann::ordered_json j;
    j["win_rate"] = result->win_rate();
    j["ci_low"] = ci.low;
    j["ci_high"] = ci.high;
    j["mean_score_diff"] = result->mean_score_diff();
    j["games"] = result->games;
    j["opponent"] = opts.opponent;
    j["capped"] = result->capped;
    j["policy"] = play->Name();
    j["colors_opened"] = result->colors_opened_per_game();
    j["score_per_color"] = result->score_per_opened_color();
    j["positive_share"] = result->positive_share();
    j["wagers_below_cost"] = result->wagers_below_cost_per_game();
    if (played->decisions > 0 &&
        (network == traversal::kAdvantageNetwork0 || network == traversal::kAdvantageNetwork1 ||
         (network < 0 && !(play->source == training::PlayPolicy::Source::kAverage)))) {
      j["fallback_rate"] = played->fallback_rate();
    }
    j["checkpoint"] = policy->directory;
    fmt::print("{}\n", j.dump());
    return kExitOk;
  }
  fmt::print("{} ({}) vs {}: {} games, seat-alternating on paired deals, seed {}\n",
             policy->directory, opts.network.empty() ? play->Name() : opts.network, opts.opponent,
             result->games, opts.seed);
  fmt::print("  win rate       {:.3f}  [{:.3f}, {:.3f}] 95% Wilson (ties count half)\n",
             result->win_rate(), ci.low, ci.high);
  fmt::print("  W / L / T      {} / {} / {}\n", result->wins, result->losses, result->ties);
  fmt::print("  score diff     {:+.1f} +- {:.1f} (95%)\n", result->mean_score_diff(),
             result->score_diff_ci_half_width());
  fmt::print("  capped games   {}\n", result->capped);
  fmt::print(
      "  expeditions    {:.2f} opened per game, {:+.1f} points each, {:.0f}% positive, "
      "{:.2f} wagered below cost per game\n",
      result->colors_opened_per_game(), result->score_per_opened_color(),
      100 * result->positive_share(), result->wagers_below_cost_per_game());
  return kExitOk;
}

}  // namespace

CommandFn AddEvalCommand(CLI::App& app) {
  auto opts = std::make_shared<EvalOptions>();
  CLI::App* sub = app.add_subcommand(
      "eval",
      "Play a checkpoint's policy (--policy, --greedy) against a bot: batched games on paired "
      "deals "
      "with seats swapped; win rate with a 95% Wilson interval, mean score difference.");
  sub->add_option("--checkpoint", opts->checkpoint, "checkpoint or run directory");
  sub->add_option("--model", opts->model,
                  "a networks file (e.g. models/lost-cities.pt), with its config beside it");
  sub->add_option("--opponent", opts->opponent, "the bot to play")->capture_default_str();
  sub->add_option("--games", opts->games, "games (pairs of deals, seats swapped)")
      ->check(CLI::Range(2, 100000000))
      ->capture_default_str();
  sub->add_option("--seed", opts->seed, "seed of the deals")
      ->check(NonNegativeInteger())
      ->capture_default_str();
  sub->add_option("--workers", opts->workers, "threads")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  sub->add_option("--device", opts->device, "cpu, cuda or auto")->capture_default_str();
  AddPolicyOptions(sub, &opts->policy);
  sub->add_option("--network", opts->network,
                  "one network plays both seats, overriding --policy's choice: strategy, or "
                  "advantage0 / advantage1 (a player's current regret-matching strategy, for "
                  "diagnosis)")
      ->check(CLI::IsMember({"strategy", "advantage0", "advantage1"}));
  sub->add_flag("--json", opts->json,
                "one JSON object: win_rate, ci_low, ci_high, mean_score_diff, games, ...");
  return [opts] { return RunEval(*opts); };
}

}  // namespace lcfr::apps
