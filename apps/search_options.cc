// --search and its budget, shared by eval, agent and play (training/search.h).
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "apps/commands.h"
#include "engine/bots.h"
#include "fmt/core.h"
#include "fmt/ranges.h"
#include "inference/batched_evaluator.h"
#include "inference/network_config.h"
#include "training/checkpoint.h"
#include "training/compose.h"

namespace lcfr::apps {

void AddSearchOptions(CLI::App* command, SearchOptions* options, bool workers) {
  training::SearchConfig& c = options->config;
  command->add_flag("--search", options->search,
                    "search every decision: rollouts of the player's policy from worlds sampled "
                    "from what it knows (docs/search.md)");
  auto add = [&](CLI::Option* option) { options->needs_search.push_back(option); };
  options->rollouts =
      command
          ->add_option("--rollouts", c.rollouts,
                       fmt::format("search budget per decision in rollouts, all candidates "
                                   "together (agent, play over the shipped model: {}, with its "
                                   "student's rollouts)",
                                   kShippedSearchRollouts))
          ->capture_default_str();
  add(options->rollouts);
  add(command
          ->add_option("--move-time-ms", c.move_time_ms,
                       "search budget per decision in milliseconds, whichever comes first "
                       "(0: none)")
          ->capture_default_str());
  add(command
          ->add_option("--worlds", c.worlds,
                       "distinct sampled worlds per decision, reused round-robin (0: a new one "
                       "for every round of rollouts)")
          ->capture_default_str());
  add(command
          ->add_option("--candidates", c.candidates,
                       "search the policy's M most probable actions and its own choice (0: every "
                       "legal action)")
          ->capture_default_str());
  add(command
          ->add_option("--threshold", c.threshold,
                       "standard errors by which the best candidate must beat the policy's own "
                       "choice to replace it")
          ->capture_default_str());
  add(command
          ->add_option("--min-gain", c.min_gain,
                       "and by at least this much, whatever the noise: a share of rollouts won "
                       "(--objective win) or points / 100 (score); 0.02 is 2 points of either")
          ->capture_default_str());
  add(command->add_option(
      "--rollout-policy", c.rollout_policy,
      fmt::format("who plays the rollouts, both seats: model (the model with the player's "
                  "--policy), the model with another policy (current, current-greedy, average, "
                  "average-greedy), or a bot ({}); default: the searching player's own policy",
                  fmt::join(engine::BotNames(), ", "))));
  add(command->add_option(
      "--opponent-rollout-policy", c.opponent_rollout_policy,
      "who plays the opponent's side of the rollouts, named as for --rollout-policy (its model "
      "of the opponent); several, comma-separated: infer which one the opponent plays from its "
      "moves (eval, play); default: --rollout-policy's"));
  add(command
          ->add_option("--opponent-worlds", c.opponent_worlds,
                       "opponent inference: worlds with a past drawn per decision to weigh the "
                       "opponent's policies by its moves")
          ->capture_default_str());
  add(command
          ->add_option("--objective", c.objective,
                       "what the search maximises: score (the mean score difference), win (the "
                       "share of rollouts won) or auto (win where the policy's choice wins at "
                       "least 75% or at most 25% of a decision's first rollouts, score "
                       "between)")
          ->capture_default_str());
  add(command
          ->add_option("--allocation", c.allocation,
                       "how the rollouts are spread over the candidates: uniform (every "
                       "candidate every round), halving (the worse half drops out after each "
                       "phase; the policy's own choice stays) or racing (a candidate drops out "
                       "once it trails clearly, and the decision ends when none but the "
                       "policy's choice is left or one beats it clearly)")
          ->capture_default_str());
  add(command
          ->add_option("--drop-threshold", c.drop_threshold,
                       "racing: standard errors by which a candidate must trail the best one, or "
                       "the policy's choice, to stop being rolled out")
          ->capture_default_str());
  add(command
          ->add_option("--rollout-depth", c.rollout_depth,
                       "cut each rollout after this many decisions and score the rest with the "
                       "model's value network (0: play every rollout to the end)")
          ->capture_default_str());
  add(command
          ->add_option("--belief", c.belief,
                       "weigh the worlds by the opponent's moves so far: draw this many worlds "
                       "with a past, each weighted by how likely the model finds the opponent's "
                       "moves in it (0: uniform worlds)")
          ->capture_default_str());
  add(command
          ->add_option("--belief-power", c.belief_power,
                       "the belief's likelihoods raised to this power, in (0, 1] (1: Bayes; "
                       "lower trusts the model as the opponent's policy less)")
          ->capture_default_str());
  add(command
          ->add_option("--belief-policy", c.belief_policy,
                       "whose likelihood weighs the belief's worlds: blueprint (the model's "
                       "policy) or opponent (the opponent's rollout policies: each round's world "
                       "by the likelihood under the policy that plays its opponent side)")
          ->capture_default_str());
  add(command->add_option(
      "--rollout-model", c.rollout_model,
      "a networks file (e.g. a student of lcfr distill) that plays the rollouts' model sides "
      "instead of the player's model: a cheaper network buys more rollouts; the player's own "
      "choice and the belief stay with its model"));
  add(command->add_option(
      "--opponent-rollout-model", c.opponent_rollout_model,
      "a networks file that plays the opponent's model sides of the rollouts (e.g. the "
      "opponent's own model), while the searching player's later moves stay with "
      "--rollout-model (or the player's model); default: the same model for both sides"));
  add(command
          ->add_option("--turn-draws", c.turn_draws,
                       "search a card decision's candidates together with the draw after them: "
                       "each card action with the policy's K most probable draws, valued by its "
                       "best (0: off, the rollout policy draws)")
          ->capture_default_str());
  add(command->add_option("--search-width", c.width, "rollouts in flight per thread (fibers)")
          ->capture_default_str());
  if (workers) {
    add(command->add_option("--workers", c.workers, "search threads per decision")
            ->capture_default_str());
    add(command
            ->add_option("--device", options->device,
                         "where the search's networks run: cpu, cuda or auto (cuda where a GPU "
                         "is visible)")
            ->capture_default_str());
  }
}

namespace {

// Whether `model` names the shipped model's file, however its path is spelled (relative, through
// a link); a path that does not resolve is not it.
bool IsShippedModel(const std::string& model) {
  if (model.empty()) return false;
  if (model == training::DefaultModelPath()) return true;
  std::error_code error;
  return std::filesystem::equivalent(model, training::DefaultModelPath(), error) && !error;
}

}  // namespace

void ApplyShippedModelSearchDefaults(const std::string& model, SearchOptions& options) {
  training::SearchConfig& c = options.config;
  if (!options.search || !IsShippedModel(model) || !c.rollout_model.empty() ||
      !(c.rollout_policy.empty() || c.rollouts_name_model())) {
    return;
  }
  c.rollout_model = training::DefaultStudentPath();
  if (options.rollouts == nullptr || options.rollouts->count() == 0) {
    c.rollouts = kShippedSearchRollouts;
  }
}

std::string SearchSummary(const training::SearchConfig& c, inference::Device device) {
  std::string line = fmt::format("{} rollouts a decision ({}", c.rollouts, c.allocation);
  if (c.move_time_ms > 0) line += fmt::format(", at most {} ms", c.move_time_ms);
  line += ")";
  if (c.turn_draws > 0) line += fmt::format(", card actions with {} draws each", c.turn_draws);
  if (!c.rollout_model.empty()) line += ", rollouts by " + c.rollout_model;
  if (!c.opponent_rollout_model.empty()) {
    line += ", the opponent's side by " + c.opponent_rollout_model;
  }
  if (device == inference::Device::kCuda) line += ", on cuda";
  return line;
}

absl::Status CheckSearchOptions(const SearchOptions& options) {
  if (!options.search) {
    for (const CLI::Option* option : options.needs_search) {
      if (option->count() > 0) {
        return absl::InvalidArgumentError(fmt::format("{} needs --search", option->get_name()));
      }
    }
    return absl::OkStatus();
  }
  return options.config.Validate();
}

absl::StatusOr<std::shared_ptr<const inference::ModelStore>> LoadRolloutModel(
    const std::string& file, const engine::Rules& rules, const std::string& flag) {
  absl::StatusOr<training::CheckpointPolicy> loaded = training::LoadModelPolicy(file);
  if (!loaded.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", flag, std::string(loaded.status().message())));
  }
  if (loaded->config.run.game != training::GameId::kLostCities) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}: a {} model, not Lost Cities", flag, file,
                    std::string(training::GameName(loaded->config.run.game))));
  }
  if (!(loaded->config.rules == rules)) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}: trained on other rules than the player's model", flag, file));
  }
  return std::shared_ptr<const inference::ModelStore>(loaded->store);
}

absl::StatusOr<LoadedPlayer> LoadSearchingPlayer(const std::string& checkpoint,
                                                 const std::string& model, const std::string& bot,
                                                 const PolicyOptions& policy,
                                                 const SearchOptions& search,
                                                 const engine::Rules& bot_rules) {
  const training::SearchConfig& config = search.config;
  training::Blueprint blueprint;
  std::shared_ptr<const inference::ModelStore> store;
  LoadedPlayer loaded;
  // The device first: a GPU asked for and not there is refused before any file is read.
  inference::InferenceConfig inference;
  {
    absl::StatusOr<inference::Device> requested = inference::ParseDevice(search.device);
    if (requested.ok()) requested = inference::ResolveDevice(*requested);
    if (!requested.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("--device: {}", std::string(requested.status().message())));
    }
    inference.device = *requested;
  }
  if (!checkpoint.empty() || !model.empty()) {
    absl::StatusOr<NetworkSource> source = LoadNetworkSource(checkpoint, model, policy);
    if (!source.ok()) return source.status();
    blueprint.play = source->play;
    blueprint.SetValue(source->policy.config.traversal.cfr);
    store = source->policy.store;
    loaded.rules = source->policy.config.rules;
    loaded.name = source->policy.directory;
  } else {
    if (!engine::MakeBot(bot).ok()) {
      return absl::InvalidArgumentError(fmt::format("unknown bot '{}'", bot));
    }
    blueprint.bot = bot;
    loaded.rules = bot_rules;
    loaded.name = bot;
  }
  // A rollout model's networks (--rollout-model, --opponent-rollout-model), or none.
  auto load_rollout =
      [&](const std::string& file,
          const std::string& flag) -> absl::StatusOr<std::shared_ptr<const inference::ModelStore>> {
    if (file.empty()) return nullptr;
    if (!store) {
      return absl::InvalidArgumentError(fmt::format(
          "{} needs the player to be a model (--checkpoint or --model), not a bot", flag));
    }
    return LoadRolloutModel(file, loaded.rules, flag);
  };
  absl::StatusOr<std::shared_ptr<const inference::ModelStore>> rollout_store =
      load_rollout(config.rollout_model, "--rollout-model");
  if (!rollout_store.ok()) return rollout_store.status();
  absl::StatusOr<std::shared_ptr<const inference::ModelStore>> opponent_rollout_store =
      load_rollout(config.opponent_rollout_model, "--opponent-rollout-model");
  if (!opponent_rollout_store.ok()) return opponent_rollout_store.status();
  const engine::LostCities game(loaded.rules);
  absl::StatusOr<std::unique_ptr<engine::Bot>> player = training::MakeSearchPlayer(
      game, blueprint, config, store, *rollout_store, *opponent_rollout_store, inference);
  if (!player.ok()) return player.status();
  loaded.bot = *std::move(player);
  loaded.name = "search over " + loaded.name;
  if (store) loaded.device = inference.device;  // a bot's search runs no network
  return loaded;
}

}  // namespace lcfr::apps
