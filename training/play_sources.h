// What the composition roots (apps/, python/) load to play a model, shared so that both say the
// same: its play policy from the model's card and the overrides asked for, and a search's rollout
// model checked against the player's rules.
#ifndef LCFR_TRAINING_PLAY_SOURCES_H_
#define LCFR_TRAINING_PLAY_SOURCES_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/rules.h"
#include "inference/model_store.h"
#include "play/play_policy.h"

namespace lcfr::training {

// The card's play policy with `policy` ("current" or "average"; "" = the card's) and `greedy`
// (unset = the card's) over it. A policy named is the whole policy: sampled unless greedy.
// Errors: the card's policy, or `policy`, names none.
absl::StatusOr<play::PlayPolicy> ResolvePlayPolicy(const play::PlayCard& card,
                                                   std::string_view policy,
                                                   std::optional<bool> greedy);

// The networks of `file`, a Lost Cities model of `rules` (the player's). Errors name the file:
// the loader's, "FILE: a GAME model, not Lost Cities", "FILE: trained on other rules than the
// player's model"; callers say which option or argument named it.
absl::StatusOr<std::shared_ptr<const inference::ModelStore>> LoadRolloutModel(
    const std::string& file, const engine::Rules& rules);

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_PLAY_SOURCES_H_
