// Racing (--allocation racing, experimental: level with uniform at the same cost,
// docs/experiments.md): the rounds come in phases of 1/8 of uniform's rounds; after each, a
// candidate other than b whose paired difference to the best candidate so far, or to b, is below
// zero by more than `drop_threshold` standard errors stops being rolled out, and the next phases
// spend what is left of the budget on the survivors. The decision ends when b alone is left, or
// when a single other is left and beats b by more than max(drop_threshold, threshold) standard
// errors. Torch-free.
#ifndef LCFR_SEARCH_EXPERIMENTAL_RACING_H_
#define LCFR_SEARCH_EXPERIMENTAL_RACING_H_

#include <vector>

#include "search/steps.h"

namespace lcfr::search {

class RacingAllocator : public Allocator {
 public:
  // Each phase plays this share of uniform's rounds: a decision whose candidates but b all trail
  // clearly after the first phase costs 1/8 of the budget.
  static constexpr int kPhases = 8;
  explicit RacingAllocator(double drop_threshold) : drop_threshold_(drop_threshold) {}
  // b and one other over the whole budget.
  int PlannedRounds(int rollouts, int count) const override;
  int PhaseRounds(int phase, int active, int64_t planned_rollouts, int rollouts,
                  int count) const override;
  bool AfterPhase(const RoundResults& results, int end, int kb, double threshold,
                  std::vector<int>& active) const override;

 private:
  double drop_threshold_;
};

}  // namespace lcfr::search

#endif  // LCFR_SEARCH_EXPERIMENTAL_RACING_H_
