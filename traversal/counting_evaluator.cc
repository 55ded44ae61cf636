#include "traversal/counting_evaluator.h"

#include <array>

#include "base/check.h"
#include "traversal/cycle_clock.h"

namespace lcfr::traversal {

CountingEvaluator::CountingEvaluator(Evaluator* inner, WorkerStats* stats)
    : inner_(inner), stats_(stats) {
  LCFR_CHECK(inner != nullptr && stats != nullptr);
}

void CountingEvaluator::Evaluate(std::span<const PolicyRequest> requests) {
  const uint64_t start = CycleClock::Now();
  inner_->Evaluate(requests);
  const int rows = static_cast<int>(requests.size());
  std::array<int, kMaxNetworks> per_network{};
  for (const PolicyRequest& request : requests) ++per_network[request.network];
  stats_->policy_calls += rows;
  stats_->rows.Add(rows);
  for (int n = 0; n < kMaxNetworks; ++n) {
    if (per_network[n] == 0) continue;
    stats_->networks[n].policy_calls += per_network[n];
    stats_->networks[n].rows.Add(per_network[n]);
  }
  stats_->evaluator_ticks += CycleClock::Now() - start;
}

}  // namespace lcfr::traversal
