// Statistics of a worker's traversals: counts, realized batch sizes and where the time went.
// One WorkerStats per worker, written only on that worker's thread; Merge adds workers up.
#ifndef LCFR_TRAVERSAL_STATS_H_
#define LCFR_TRAVERSAL_STATS_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "traversal/evaluator.h"

namespace lcfr::traversal {

// Rows per evaluator call: histogram[r] = number of calls with r rows.
struct RowHistogram {
  std::vector<int64_t> counts;
  void Add(int rows);
  void Merge(const RowHistogram& other);
  int64_t batches() const;
  int64_t rows() const;
  double Mean() const;
  // Smallest r such that at least fraction q of the batches have <= r rows; 0 when empty.
  int Percentile(double q) const;
};

struct NetworkStats {
  int64_t policy_calls = 0;
  RowHistogram rows;  // rows of this network per evaluator call that had any
};

struct WorkerStats {
  int64_t traversals = 0;
  int64_t nodes = 0;          // game states visited, terminals included
  int64_t capped_leaves = 0;  // terminals that ended at the game's decision cap
  int64_t advantage_samples = 0;
  int64_t strategy_samples = 0;
  int64_t value_samples = 0;  // the value scheme's action-value samples
  int64_t policy_calls = 0;
  RowHistogram rows;  // rows per evaluator call (a "batch"; 1 for the plain recursion)
  std::array<NetworkStats, kMaxNetworks> networks;
  // Time split, in CycleClock ticks: game + encode + CFR arithmetic (time inside traversals),
  // evaluator calls, and the rest of the worker's loop (fiber switches, scheduling).
  uint64_t game_ticks = 0;
  uint64_t evaluator_ticks = 0;
  uint64_t scheduler_ticks = 0;

  int64_t batches() const { return rows.batches(); }
  double game_seconds() const;
  double evaluator_seconds() const;
  double scheduler_seconds() const;
  double total_seconds() const {
    return game_seconds() + evaluator_seconds() + scheduler_seconds();
  }

  void Merge(const WorkerStats& other);
  // A few lines for people: counts, rows per batch (mean, p50, p95), the time split.
  std::string Summary() const;
};

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_STATS_H_
