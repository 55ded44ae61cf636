// lcfr distill: a smaller network set that imitates a trained Lost Cities model (training/
// distill.h), for cheaper search rollouts (--rollout-model, docs/search.md).
#include <memory>
#include <string>

#include "apps/commands.h"
#include "fmt/core.h"
#include "nlohmann/json.hpp"
#include "training/checkpoint.h"
#include "training/distill.h"

namespace lcfr::apps {
namespace {

struct DistillOptions {
  std::string checkpoint;
  std::string model;
  std::string out;
  std::string policy = "current";
  training::DistillConfig config;
  bool json = false;
};

int RunDistill(DistillOptions& opts) {
  if (opts.checkpoint.empty() == opts.model.empty()) {
    PrintError("distill", "give one of --checkpoint and --model (the teacher)");
    return kExitBadInput;
  }
  const absl::StatusOr<play::PlayPolicy> play = play::PlayPolicy::Parse(opts.policy);
  if (!play.ok()) {
    PrintError("distill", "--policy: " + std::string(play.status().message()));
    return kExitBadInput;
  }
  opts.config.play = *play;
  if (absl::Status s = opts.config.Validate(); !s.ok()) {
    PrintError("distill", std::string(s.message()));
    return kExitBadInput;
  }
  auto teacher = opts.checkpoint.empty() ? training::LoadModelPolicy(opts.model)
                                         : training::LoadCheckpointPolicy(opts.checkpoint);
  if (!teacher.ok()) {
    PrintError("distill", std::string(teacher.status().message()));
    return kExitBadInput;
  }
  auto log = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  absl::StatusOr<training::DistillResult> result =
      training::Distill(*teacher, opts.config, opts.out, log);
  if (!result.ok()) {
    PrintError("distill", std::string(result.status().message()));
    return absl::IsInvalidArgument(result.status()) ? kExitBadInput : kExitFailure;
  }
  const training::DistillResult& r = *result;
  if (opts.json) {
    nlohmann::ordered_json j;
    j["teacher"] = teacher->directory;
    j["networks"] = r.networks_path;
    j["config"] = r.config_path;
    j["student"] = r.student;
    j["teacher_weights"] = r.teacher_weights;
    j["student_weights"] = r.student_weights;
    j["train_states"] = r.train_states;
    j["holdout_states"] = r.holdout_states;
    for (const training::DistilledNetwork& d : r.networks) {
      j["fit"][d.name] = {{"samples", d.train},
                          {"loss", d.loss},
                          {"holdout_mse", d.holdout_mse},
                          {"holdout_variance", d.holdout_variance}};
    }
    j["current_agreement"] = r.current.greedy;
    j["current_total_variation"] = r.current.total_variation;
    j["average_agreement"] = r.average.greedy;
    j["average_total_variation"] = r.average.total_variation;
    j["play_seconds"] = r.play_seconds;
    j["fit_seconds"] = r.fit_seconds;
    fmt::print("{}\n", j.dump());
    return kExitOk;
  }
  fmt::print("{} -> {} (and {})\n", teacher->directory, r.networks_path, r.config_path);
  fmt::print("  student {}: {} weights per network (the teacher {})\n", r.student,
             r.student_weights, r.teacher_weights);
  fmt::print("  {} states fitted, {} held out; games and outputs {:.1f} s, fitting {:.1f} s\n",
             r.train_states, r.holdout_states, r.play_seconds, r.fit_seconds);
  for (const training::DistilledNetwork& d : r.networks) {
    fmt::print("  {:<12} loss {:.5f}  held-out MSE {:.5f} of variance {:.5f} (R^2 {:.3f})\n",
               d.name, d.loss, d.holdout_mse, d.holdout_variance,
               d.holdout_variance > 0 ? 1 - d.holdout_mse / d.holdout_variance : 0.0);
  }
  fmt::print(
      "  held out: current policy's most probable action agrees {:.1f}%, total variation "
      "{:.3f}; average policy's {:.1f}%, {:.3f}\n",
      100 * r.current.greedy, r.current.total_variation, 100 * r.average.greedy,
      r.average.total_variation);
  return kExitOk;
}

}  // namespace

CommandFn AddDistillCommand(CLI::App& app) {
  auto opts = std::make_shared<DistillOptions>();
  CLI::App* sub = app.add_subcommand(
      "distill",
      "Fit a smaller network set to a trained Lost Cities model (the teacher) on the states of "
      "its self-play games, and write it as a networks file with its configuration beside it: a "
      "cheaper model for search rollouts (--rollout-model), or anything that takes --model.");
  sub->add_option("--checkpoint", opts->checkpoint, "the teacher: a checkpoint or run directory");
  sub->add_option("--model", opts->model,
                  "the teacher: a networks file (e.g. models/lost-cities.pt), with its config "
                  "beside it");
  sub->add_option("--out", opts->out,
                  "the student's networks file, ending in .pt (its config goes beside it, .yaml)")
      ->required();
  sub->add_option("--games", opts->config.games,
                  "self-play games of the teacher; every decision is a state")
      ->capture_default_str();
  sub->add_option("--holdout-games", opts->config.holdout_games,
                  "of those, the last N are held out to measure the agreement")
      ->capture_default_str();
  sub->add_option("--steps", opts->config.steps, "SGD steps per network")->capture_default_str();
  sub->add_option("--hidden-width", opts->config.hidden_width,
                  "the student's units per hidden layer")
      ->capture_default_str();
  sub->add_option("--hidden-layers", opts->config.hidden_layers,
                  "the student's hidden layers (cards: of the colour encoder)")
      ->capture_default_str();
  sub->add_option("--policy", opts->policy,
                  "the teacher's policy in the games: current, current-greedy, average, "
                  "average-greedy")
      ->capture_default_str();
  sub->add_option("--workers", opts->config.workers, "threads")->capture_default_str();
  sub->add_option("--seed", opts->config.seed, "seed of the games and the fit")
      ->check(NonNegativeInteger())
      ->capture_default_str();
  sub->add_flag("--json", opts->json,
                "one JSON object: student, train_states, fit, current_agreement, ...");
  return [opts] { return RunDistill(*opts); };
}

}  // namespace lcfr::apps
