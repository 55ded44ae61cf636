// The players of agent and play, and the policy options of eval, agent and play: a model's or a
// checkpoint's policy with its card (play::PlayCard), a bot, each searching or not.
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "apps/commands.h"
#include "base/strings.h"
#include "fmt/core.h"
#include "inference/batched_evaluator.h"
#include "play/bots.h"
#include "search/config.h"
#include "training/checkpoint.h"
#include "training/compose.h"
#include "training/play_sources.h"

namespace lcfr::apps {

absl::StatusOr<play::PlayPolicy> PolicyOptions::Resolve(const play::PlayCard& card) const {
  // --policy names the whole policy (sampled unless --greedy); --greedy alone sets greedy play.
  std::optional<bool> greedy_flag;
  if (!policy.empty()) {
    greedy_flag = greedy;
  } else if (greedy_option != nullptr && greedy_option->count() > 0) {
    greedy_flag = true;
  }
  return training::ResolvePlayPolicy(card, policy, greedy_flag);
}

void AddPolicyOptions(CLI::App* command, PolicyOptions* options) {
  command
      ->add_option("--policy", options->policy,
                   "the network policy: average (the strategy network's average strategy) or "
                   "current (the advantage network's regret matching, the last iterate); "
                   "default: the model card's (current for the models lcfr trains)")
      ->check(CLI::IsMember({"average", "current"}));
  options->greedy_option =
      command->add_flag("--greedy", options->greedy,
                        "play the most probable legal action (ties broken by the seeded RNG) "
                        "instead of sampling");
}

absl::StatusOr<NetworkSource> LoadNetworkSource(const std::string& checkpoint,
                                                const std::string& model,
                                                const PolicyOptions& policy) {
  absl::StatusOr<training::CheckpointPolicy> loaded =
      checkpoint.empty() ? training::LoadModelPolicy(model)
                         : training::LoadCheckpointPolicy(checkpoint);
  if (!loaded.ok()) return loaded.status();
  if (loaded->config.run.game != training::GameId::kLostCities) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: a {} checkpoint, not a Lost Cities one (a toy game's exact exploitability is in "
        "its run's metrics.jsonl)",
        loaded->directory, training::GameName(loaded->config.run.game)));
  }
  const absl::StatusOr<play::PlayPolicy> play = policy.Resolve(loaded->config.play);
  if (!play.ok()) return play.status();
  // A model's card speaks of paths beside the model's file; a checkpoint's, of its directory.
  std::string card_dir = loaded->directory;
  if (checkpoint.empty()) {
    const size_t slash = model.find_last_of('/');
    card_dir = slash == std::string::npos ? "." : model.substr(0, slash);
  }
  return NetworkSource{*std::move(loaded), *play, card_dir};
}

namespace {

// The searching player over `source`'s policy (null: over the bot `bot` on `bot_rules`).
absl::StatusOr<LoadedPlayer> LoadSearchingPlayer(NetworkSource* source, const std::string& bot,
                                                 const SearchOptions& search,
                                                 const engine::Rules& bot_rules) {
  const search::SearchConfig& config = search.config;
  search::Blueprint blueprint;
  std::shared_ptr<const inference::ModelStore> store;
  LoadedPlayer loaded;
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
  if (source != nullptr) {
    blueprint.play = source->play;
    blueprint.SetValue(source->policy.config.traversal.cfr);
    store = source->policy.store;
    loaded.rules = source->policy.config.rules;
    loaded.name = source->policy.directory;
  } else {
    if (!play::MakeBot(bot).ok()) {
      return absl::InvalidArgumentError(fmt::format("unknown bot '{}'", bot));
    }
    blueprint.bot = bot;
    loaded.rules = bot_rules;
    loaded.name = bot;
  }
  std::shared_ptr<const inference::ModelStore> rollout_store;
  if (!config.rollout_model.empty()) {
    if (!store) {
      return absl::InvalidArgumentError(
          "--rollout-model needs the player to be a model (--checkpoint or --model), not a bot");
    }
    absl::StatusOr<std::shared_ptr<const inference::ModelStore>> rollouts =
        LoadRolloutModel(config.rollout_model, loaded.rules);
    if (!rollouts.ok()) return rollouts.status();
    rollout_store = *std::move(rollouts);
  }
  const engine::LostCities game(loaded.rules);
  absl::StatusOr<std::unique_ptr<search::SearchPlayer>> player =
      training::MakeSearchPlayer(game, blueprint, config, store, rollout_store, inference);
  if (!player.ok()) return player.status();
  loaded.bot = *std::move(player);
  loaded.name = "search over " + loaded.name;
  loaded.searching = true;
  if (store) loaded.device = inference.device;  // a bot's search runs no network
  loaded.summary = SearchSummary(config, loaded.device);
  return loaded;
}

}  // namespace

absl::StatusOr<LoadedPlayer> LoadPlayer(const std::string& checkpoint, const std::string& model,
                                        const std::string& bot, const PolicyOptions& policy,
                                        SearchOptions search, const engine::Rules& bot_rules) {
  if (checkpoint.empty() && model.empty()) {
    if (absl::Status s = CheckSearchOptions(search); !s.ok()) return s;
    if (search.search) return LoadSearchingPlayer(nullptr, bot, search, bot_rules);
    absl::StatusOr<std::unique_ptr<play::Bot>> made = play::MakeBot(bot);
    if (!made.ok()) return made.status();
    LoadedPlayer loaded;
    loaded.rules = bot_rules;
    loaded.name = bot;
    loaded.bot = *std::move(made);
    return loaded;
  }
  absl::StatusOr<NetworkSource> source = LoadNetworkSource(checkpoint, model, policy);
  if (!source.ok()) return source.status();
  ApplyCard(source->policy.config.play, source->card_dir, search);
  if (absl::Status s = CheckSearchOptions(search); !s.ok()) return s;
  if (search.search) return LoadSearchingPlayer(&*source, bot, search, bot_rules);
  LoadedPlayer loaded;
  loaded.rules = source->policy.config.rules;
  loaded.name = source->policy.directory;
  absl::StatusOr<std::unique_ptr<training::CheckpointBot>> network =
      training::CheckpointBot::FromPolicy(std::move(source->policy), source->play);
  if (!network.ok()) return network.status();
  loaded.bot = *std::move(network);
  return loaded;
}

}  // namespace lcfr::apps
