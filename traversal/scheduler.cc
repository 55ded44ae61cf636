#include "traversal/scheduler.h"

#include "traversal/cycle_clock.h"

namespace lcfr::traversal {

void DirectScheduler::Run(int64_t count, const Task& task) {
  PolicyClient policy = PolicyClient::Direct(&counting_);
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t start = CycleClock::Now();
    const uint64_t evaluator_before = stats_.evaluator_ticks;
    task(i, policy);
    ++stats_.traversals;
    stats_.game_ticks += CycleClock::Now() - start - (stats_.evaluator_ticks - evaluator_before);
  }
}

}  // namespace lcfr::traversal
