#include "traversal/stats.h"

#include <algorithm>
#include <thread>

#include "base/strings.h"
#include "traversal/cycle_clock.h"

namespace lcfr::traversal {

double CycleClock::SecondsPerTick() {
  static const double seconds_per_tick = [] {
#if defined(__x86_64__)
    const auto t0 = std::chrono::steady_clock::now();
    const uint64_t c0 = Now();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto t1 = std::chrono::steady_clock::now();
    const uint64_t c1 = Now();
    return std::chrono::duration<double>(t1 - t0).count() / static_cast<double>(c1 - c0);
#else
    return std::chrono::duration<double>(std::chrono::steady_clock::duration(1)).count();
#endif
  }();
  return seconds_per_tick;
}

void RowHistogram::Add(int rows) {
  if (static_cast<size_t>(rows) >= counts.size()) counts.resize(rows + 1, 0);
  ++counts[rows];
}

void RowHistogram::Merge(const RowHistogram& other) {
  if (other.counts.size() > counts.size()) counts.resize(other.counts.size(), 0);
  for (size_t r = 0; r < other.counts.size(); ++r) counts[r] += other.counts[r];
}

int64_t RowHistogram::batches() const {
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  return total;
}

int64_t RowHistogram::rows() const {
  int64_t total = 0;
  for (size_t r = 0; r < counts.size(); ++r) total += static_cast<int64_t>(r) * counts[r];
  return total;
}

double RowHistogram::Mean() const {
  const int64_t b = batches();
  return b == 0 ? 0.0 : static_cast<double>(rows()) / static_cast<double>(b);
}

int RowHistogram::Percentile(double q) const {
  const int64_t b = batches();
  if (b == 0) return 0;
  int64_t seen = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    seen += counts[r];
    if (static_cast<double>(seen) >= q * static_cast<double>(b)) return static_cast<int>(r);
  }
  return static_cast<int>(counts.size()) - 1;
}

double WorkerStats::game_seconds() const {
  return static_cast<double>(game_ticks) * CycleClock::SecondsPerTick();
}
double WorkerStats::evaluator_seconds() const {
  return static_cast<double>(evaluator_ticks) * CycleClock::SecondsPerTick();
}
double WorkerStats::scheduler_seconds() const {
  return static_cast<double>(scheduler_ticks) * CycleClock::SecondsPerTick();
}

void WorkerStats::Merge(const WorkerStats& other) {
  traversals += other.traversals;
  nodes += other.nodes;
  capped_leaves += other.capped_leaves;
  advantage_samples += other.advantage_samples;
  strategy_samples += other.strategy_samples;
  value_samples += other.value_samples;
  policy_calls += other.policy_calls;
  rows.Merge(other.rows);
  for (int n = 0; n < kMaxNetworks; ++n) {
    networks[n].policy_calls += other.networks[n].policy_calls;
    networks[n].rows.Merge(other.networks[n].rows);
  }
  game_ticks += other.game_ticks;
  evaluator_ticks += other.evaluator_ticks;
  scheduler_ticks += other.scheduler_ticks;
}

std::string WorkerStats::Summary() const {
  const double total = std::max(total_seconds(), 1e-12);
  std::string out =
      lcfr::StrCat("traversals ", traversals, ", nodes ", nodes, ", capped leaves ", capped_leaves,
                   ", samples ", advantage_samples, " advantage + ", strategy_samples,
                   " strategy + ", value_samples, " value\n", "policy calls ", policy_calls, " in ",
                   batches(), " batches; rows per batch mean ", fmt::format("{:.1f}", rows.Mean()),
                   ", p50 ", rows.Percentile(0.5), ", p95 ", rows.Percentile(0.95), "\n");
  for (int n = 0; n < kMaxNetworks; ++n) {
    if (networks[n].policy_calls == 0) continue;
    lcfr::StrAppend(&out, "  network ", n, ": ", networks[n].policy_calls, " calls, ",
                    fmt::format("{:.1f}", networks[n].rows.Mean()), " rows per batch\n");
  }
  lcfr::StrAppend(
      &out, fmt::format("time {:.3f} s: game+encode {:.1f}%, evaluator {:.1f}%, scheduler "
                        "{:.1f}%",
                        total_seconds(), 100 * game_seconds() / total,
                        100 * evaluator_seconds() / total, 100 * scheduler_seconds() / total));
  return out;
}

}  // namespace lcfr::traversal
