#include "play/play_policy.h"

#include "base/stream_cat.h"

namespace lcfr::play {

std::string PlayPolicy::Name() const {
  const std::string base = source == Source::kAverage ? "average" : "current";
  return greedy ? base + "-greedy" : base;
}

absl::StatusOr<PlayPolicy> PlayPolicy::Parse(std::string_view name) {
  for (Source source : {Source::kAverage, Source::kCurrent}) {
    for (bool greedy : {false, true}) {
      const PlayPolicy p{source, greedy};
      if (p.Name() == name) return p;
    }
  }
  return absl::InvalidArgumentError(lcfr::StreamCat(
      "unknown policy '", name, "' (known: average, average-greedy, current, current-greedy)"));
}

namespace {

constexpr Field<PlayCard> kPlayCardFields[] = {
    Text("policy", &PlayCard::policy,
         "the policy it plays by default: current, current-greedy, average or average-greedy"),
    Flag("search", &PlayCard::search, "search every decision by default (agent, play)"),
    Text("rollout_model", &PlayCard::rollout_model,
         "with the search: the rollouts' networks file, relative to the model's own file (empty: "
         "the model itself)"),
    Number("rollouts", &PlayCard::rollouts, 0, 10000000,
           "with the search: rollouts a decision (0: the search's default)"),
};

}  // namespace

std::span<const Field<PlayCard>> PlayCardFields() { return kPlayCardFields; }

absl::Status PlayCard::Validate() const {
  if (absl::Status s = CheckRanges<PlayCard>(*this, kPlayCardFields, "play."); !s.ok()) return s;
  if (absl::StatusOr<PlayPolicy> p = PlayPolicy::Parse(policy); !p.ok()) {
    return absl::InvalidArgumentError(lcfr::StreamCat("play.policy: ", p.status().message()));
  }
  return absl::OkStatus();
}

}  // namespace lcfr::play
