// The statistics of an evaluator's use, as a decorator: every batch that passes through it
// is counted into a worker's WorkerStats (policy calls, rows per call, per network) and timed
// (evaluator_ticks). The fiber batcher and the direct scheduler serve their requests through
// one, so the counting lives in one place and any Evaluator can be counted.
#ifndef LCFR_TRAVERSAL_COUNTING_EVALUATOR_H_
#define LCFR_TRAVERSAL_COUNTING_EVALUATOR_H_

#include <span>

#include "traversal/evaluator.h"
#include "traversal/stats.h"

namespace lcfr::traversal {

class CountingEvaluator final : public Evaluator {
 public:
  // Both must outlive the decorator.
  CountingEvaluator(Evaluator* inner, WorkerStats* stats);

  // Evaluates through the inner evaluator, then counts the batch (a batch whose evaluation
  // throws is not counted).
  void Evaluate(std::span<const PolicyRequest> requests) override;

 private:
  Evaluator* inner_;
  WorkerStats* stats_;
};

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_COUNTING_EVALUATOR_H_
