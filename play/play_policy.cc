#include "play/play_policy.h"

#include "engine/stream_cat.h"

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

}  // namespace lcfr::play
