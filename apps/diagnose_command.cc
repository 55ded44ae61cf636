// lcfr diagnose: what limits a trained Lost Cities policy. The value network's accuracy (R^2
// against high-sample rollouts on fixed states) and the regret targets' variance there
// (training/diagnostics.h).
#include <string>

#include "apps/commands.h"
#include "fmt/core.h"
#include "inference/batched_evaluator.h"
#include "nlohmann/json.hpp"
#include "training/checkpoint.h"
#include "training/compose.h"
#include "training/diagnostics.h"

namespace lcfr::apps {
namespace {

struct DiagnoseOptions {
  std::string checkpoint;
  std::string model;
  training::ValueCheckOptions check;
  bool json = false;
};

int RunDiagnose(const DiagnoseOptions& opts) {
  if (opts.checkpoint.empty() == opts.model.empty()) {
    PrintError("diagnose", "give one of --checkpoint and --model");
    return kExitBadInput;
  }
  auto policy = opts.checkpoint.empty() ? training::LoadModelPolicy(opts.model)
                                        : training::LoadCheckpointPolicy(opts.checkpoint);
  if (!policy.ok()) {
    PrintError("diagnose", std::string(policy.status().message()));
    return kExitBadInput;
  }
  const training::TrainConfig& config = policy->config;
  if (config.run.game != training::GameId::kLostCities) {
    PrintError("diagnose", policy->directory + ": a " +
                               std::string(training::GameName(config.run.game)) +
                               " checkpoint; its exact exploitability is in the run's "
                               "metrics.jsonl");
    return kExitBadInput;
  }
  const traversal::Scheme scheme = config.traversal.cfr.scheme;
  if (scheme != traversal::Scheme::kValue && scheme != traversal::Scheme::kEscher) {
    PrintError("diagnose",
               policy->directory + ": its scheme (" + std::string(traversal::SchemeName(scheme)) +
                   ") trains no value network; diagnose measures the value and escher schemes'");
    return kExitBadInput;
  }
  training::ValueCheckOptions check = opts.check;
  check.history = scheme == traversal::Scheme::kEscher;
  check.payoff_scale = config.traversal.cfr.payoff_scale > 0
                           ? config.traversal.cfr.payoff_scale
                           : engine::LostCities::DefaultPayoffScale();
  const engine::LostCities game(config.rules);
  inference::InferenceConfig inference;  // on the CPU, in fp32: the networks as trained
  inference.precision = inference::Precision::kFp32;
  absl::StatusOr<training::Evaluators> evaluators =
      training::MakeEvaluators(policy->store, inference, check.workers);
  if (!evaluators.ok()) {
    PrintError("diagnose", std::string(evaluators.status().message()));
    return kExitFailure;
  }
  if (!opts.json) {
    fmt::print(stderr, "diagnose: {} states x {} rollouts per legal action ...\n", check.states,
               check.rollouts);
  }
  auto result = training::CheckValueAccuracy(game, training::HandOut(*evaluators), check);
  if (!result.ok()) {
    PrintError("diagnose", std::string(result.status().message()));
    return kExitBadInput;
  }
  const training::ValueCheckResult& r = *result;
  if (opts.json) {
    nlohmann::ordered_json j;
    j["checkpoint"] = policy->directory;
    j["scheme"] = std::string(traversal::SchemeName(scheme));
    j["states"] = r.states;
    j["pairs"] = r.pairs;
    j["rollouts"] = r.rollouts;
    j["r2_q"] = r.r2_q;
    j["r2_advantage"] = r.r2_advantage;
    j["rmse_q"] = r.rmse_q;
    j["rmse_advantage"] = r.rmse_advantage;
    j["noise_share_q"] = r.noise_share_q;
    j["noise_share_advantage"] = r.noise_share_advantage;
    j["sampled_target_variance"] = r.sampled_target_variance;
    j["mean_sigma_entropy"] = r.mean_sigma_entropy;
    j["seconds"] = r.seconds;
    fmt::print("{}\n", j.dump());
    return kExitOk;
  }
  fmt::print("{} ({} scheme): {} states, {} (state, action) pairs, {} rollouts in {:.1f} s\n",
             policy->directory, traversal::SchemeName(scheme), r.states, r.pairs, r.rollouts,
             r.seconds);
  fmt::print(
      "  value network Q(s,a)     R^2 {:.3f}  RMSE {:.4f}  (rollout noise {:.1f}% of the "
      "variance)\n",
      r.r2_q, r.rmse_q, 100 * r.noise_share_q);
  fmt::print(
      "  its advantages           R^2 {:.3f}  RMSE {:.4f}  (rollout noise {:.1f}% of the "
      "variance)\n",
      r.r2_advantage, r.rmse_advantage, 100 * r.noise_share_advantage);
  fmt::print(
      "  one rollout's regret target: variance {:.4f} per action (the value network's "
      "targets: none, error {:.4f} squared)\n",
      r.sampled_target_variance, r.rmse_advantage * r.rmse_advantage);
  fmt::print("  current policy entropy   {:.3f} nats per state\n", r.mean_sigma_entropy);
  fmt::print("  payoffs in units of {:g} points\n", check.payoff_scale);
  return kExitOk;
}

}  // namespace

CommandFn AddDiagnoseCommand(CLI::App& app) {
  auto opts = std::make_shared<DiagnoseOptions>();
  CLI::App* sub = app.add_subcommand(
      "diagnose",
      "Measure what limits a trained Lost Cities policy (value or escher scheme): on fixed "
      "states reached by the current policy's self-play, the value network's Q(s,a) and its "
      "advantages against the means of many rollouts (R^2, RMSE, how much of the variance is "
      "rollout noise), and the variance of one rollout's regret target.");
  sub->add_option("--checkpoint", opts->checkpoint, "checkpoint or run directory");
  sub->add_option("--model", opts->model,
                  "a networks file (e.g. models/lost-cities.pt), with its config beside it");
  sub->add_option("--states", opts->check.states, "fixed states")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  sub->add_option("--rollouts", opts->check.rollouts,
                  "rollouts per legal action of each state (common random numbers)")
      ->check(CLI::Range(2, 1000000))
      ->capture_default_str();
  sub->add_option("--start-depth-max", opts->check.start_depth_max,
                  "a state follows 0..N decisions of self-play")
      ->check(CLI::Range(0, 60000))
      ->capture_default_str();
  sub->add_option("--seed", opts->check.seed, "seed of the states and rollouts")
      ->check(NonNegativeInteger())
      ->capture_default_str();
  sub->add_option("--workers", opts->check.workers, "threads")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  sub->add_flag("--json", opts->json,
                "one JSON object: r2_q, r2_advantage, rmse_q, rmse_advantage, noise_share_q, "
                "noise_share_advantage, sampled_target_variance, ...");
  return [opts] { return RunDiagnose(*opts); };
}

}  // namespace lcfr::apps
