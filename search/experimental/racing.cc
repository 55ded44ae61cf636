#include "search/experimental/racing.h"

#include <algorithm>

namespace lcfr::search {

int RacingAllocator::PlannedRounds(int rollouts, int count) const {
  return std::max(std::max(1, rollouts / count), rollouts / 2);
}

int RacingAllocator::PhaseRounds(int phase, int active, int64_t planned_rollouts, int rollouts,
                                 int count) const {
  const int uniform_rounds = std::max(1, rollouts / count);
  const int64_t step = std::max(1, uniform_rounds / kPhases);
  int rounds = static_cast<int>(std::min<int64_t>(step, (rollouts - planned_rollouts) / active));
  if (phase == 0) rounds = std::max(1, rounds);
  return std::max(0, rounds);
}

bool RacingAllocator::AfterPhase(const RoundResults& results, int end, int kb, double threshold,
                                 std::vector<int>& active) const {
  // The best so far; the others but b drop out when they trail it or b clearly.
  const double z = drop_threshold_;
  int best = active[0];
  for (int k : active) {
    if (results.Mean(k, end) > results.Mean(best, end)) best = k;
  }
  std::vector<int> kept;
  for (int k : active) {
    if (k == kb || k == best ||
        !(results.Trails(k, best, end, z) || results.Trails(k, kb, end, z))) {
      kept.push_back(k);
    }
  }
  active = std::move(kept);
  // Done: b alone, or one other that beats b clearly (b trails it).
  if (active.size() == 1) return true;
  if (active.size() == 2) {
    const int other = active[0] == kb ? active[1] : active[0];
    if (results.Trails(kb, other, end, std::max(z, threshold))) return true;
  }
  return false;
}

}  // namespace lcfr::search
