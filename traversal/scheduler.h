// How a worker runs its traversals, as types behind one interface:
// - FiberScheduler: up to `width` tasks at once as fibers, suspended at their policy calls and
//   served by one batched evaluator call per flush (the FiberBatcher, traversal/fiber_batcher.h);
// - DirectScheduler: one task at a time on the worker thread, each policy call a one-row
//   evaluator call (the plain recursion the fibers replace: the baseline of benchmarks and the
//   determinism tests).
// One per worker; not thread-safe. Run rethrows a task's or the evaluator's failure after the
// other tasks stopped (FiberBatcher's failure model).
#ifndef LCFR_TRAVERSAL_SCHEDULER_H_
#define LCFR_TRAVERSAL_SCHEDULER_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "traversal/counting_evaluator.h"
#include "traversal/evaluator.h"
#include "traversal/fiber_batcher.h"
#include "traversal/stats.h"

namespace lcfr::traversal {

class Scheduler {
 public:
  using Task = std::function<void(int64_t index, PolicyClient& policy)>;

  virtual ~Scheduler() = default;
  // Runs task(0..count-1) and returns when all finished. Tasks in flight at once use distinct
  // PolicyClient::slot() values in [0, slots()).
  virtual void Run(int64_t count, const Task& task) = 0;
  virtual int slots() const = 0;
  // Cumulative statistics since construction or the last reset (stats() = WorkerStats{}).
  virtual WorkerStats& stats() = 0;
};

class FiberScheduler : public Scheduler {
 public:
  // `evaluator` must outlive the scheduler.
  FiberScheduler(const BatcherConfig& config, Evaluator* evaluator) : batcher_(config, evaluator) {}
  void Run(int64_t count, const Task& task) override { batcher_.Run(count, task); }
  int slots() const override { return batcher_.config().width; }
  WorkerStats& stats() override { return batcher_.stats(); }

 private:
  FiberBatcher batcher_;
};

class DirectScheduler : public Scheduler {
 public:
  // `evaluator` must outlive the scheduler.
  explicit DirectScheduler(Evaluator* evaluator) : counting_(evaluator, &stats_) {}
  void Run(int64_t count, const Task& task) override;
  int slots() const override { return 1; }
  WorkerStats& stats() override { return stats_; }

 private:
  WorkerStats stats_;
  CountingEvaluator counting_;  // the evaluator, counted into stats_
};

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_SCHEDULER_H_
