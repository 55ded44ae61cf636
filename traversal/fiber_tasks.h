// Running many independent tasks as fibers, on worker threads each with its own evaluator and
// batcher, so that their policy calls are served in batches (games of a match, distillation's
// games and forwards, the value diagnostics' rollouts). Torch-free.
#ifndef LCFR_TRAVERSAL_FIBER_TASKS_H_
#define LCFR_TRAVERSAL_FIBER_TASKS_H_

#include <cstdint>
#include <functional>

#include "traversal/evaluator.h"
#include "traversal/fiber_batcher.h"

namespace lcfr::traversal {

// Runs task(i, policy) for every i in [0, tasks) as fibers on `workers` threads (contiguous index
// ranges), each thread with its own evaluator (`evaluators(w)`) and a FiberBatcher of `width`
// fibers with loop-sized stacks. The first worker's exception is rethrown after all have joined.
void RunFiberTasks(const EvaluatorFactory& evaluators, int64_t tasks, int workers, int width,
                   const std::function<void(int64_t, PolicyClient&)>& task);

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_FIBER_TASKS_H_
