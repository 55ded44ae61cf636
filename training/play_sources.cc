#include "training/play_sources.h"

#include "base/stream_cat.h"
#include "training/checkpoint.h"
#include "training/config.h"

namespace lcfr::training {

absl::StatusOr<play::PlayPolicy> ResolvePlayPolicy(const play::PlayCard& card,
                                                   std::string_view policy,
                                                   std::optional<bool> greedy) {
  absl::StatusOr<play::PlayPolicy> play = play::PlayPolicy::Parse(card.policy);
  if (!play.ok()) return play.status();
  if (!policy.empty()) {
    if (policy != "current" && policy != "average") {
      return absl::InvalidArgumentError(
          StreamCat("policy: '", policy, "' is not current or average"));
    }
    play->source = policy == "average" ? play::PlayPolicy::Source::kAverage
                                       : play::PlayPolicy::Source::kCurrent;
    play->greedy = greedy.value_or(false);
  } else if (greedy.has_value()) {
    play->greedy = *greedy;
  }
  return play;
}

absl::StatusOr<std::shared_ptr<const inference::ModelStore>> LoadRolloutModel(
    const std::string& file, const engine::Rules& rules) {
  absl::StatusOr<CheckpointPolicy> loaded = LoadModelPolicy(file);
  if (!loaded.ok()) return loaded.status();
  if (loaded->config.run.game != GameId::kLostCities) {
    return absl::InvalidArgumentError(
        StreamCat(file, ": a ", GameName(loaded->config.run.game), " model, not Lost Cities"));
  }
  if (!(loaded->config.rules == rules)) {
    return absl::InvalidArgumentError(
        StreamCat(file, ": trained on other rules than the player's model"));
  }
  return std::shared_ptr<const inference::ModelStore>(loaded->store);
}

}  // namespace lcfr::training
