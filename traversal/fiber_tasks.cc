#include "traversal/fiber_tasks.h"

#include <memory>

#include "base/threads.h"

namespace lcfr::traversal {

void RunFiberTasks(const EvaluatorFactory& evaluators, int64_t tasks, int workers, int width,
                   const std::function<void(int64_t, PolicyClient&)>& task) {
  RunOnThreads(workers, [&](int w) {
    const int64_t begin = tasks * w / workers, end = tasks * (w + 1) / workers;
    std::unique_ptr<Evaluator> evaluator = evaluators(w);
    BatcherConfig config;
    config.width = width;
    config.stack_bytes = StackBytesForDepth(64);  // loops, not a recursion
    FiberBatcher batcher(config, evaluator.get());
    batcher.Run(end - begin, [&](int64_t i, PolicyClient& policy) { task(begin + i, policy); });
  });
}

}  // namespace lcfr::traversal
