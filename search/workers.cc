#include "search/workers.h"

#include <algorithm>
#include <stdexcept>

#include "base/threads.h"

namespace lcfr::search {
namespace {

// The evaluator of a player that never asks a network (a scripted blueprint and rollouts).
class NoModelEvaluator : public traversal::Evaluator {
 public:
  void Evaluate(std::span<const traversal::PolicyRequest>) override {
    throw std::logic_error("search: a network was asked for, but no model was given");
  }
};

}  // namespace

Workers::Workers(int count, int width, const traversal::EvaluatorFactory& evaluators,
                 const traversal::EvaluatorFactory& rollout_evaluators, const RolloutSide& self,
                 const std::vector<RolloutSide>& opponents)
    : width_(width) {
  traversal::BatcherConfig batcher;
  batcher.width = width;
  batcher.stack_bytes = traversal::StackBytesForDepth(64);  // a rollout is a loop
  for (int w = 0; w < count; ++w) {
    auto worker = std::make_unique<Worker>();
    worker->evaluator = evaluators ? evaluators(w) : std::make_unique<NoModelEvaluator>();
    worker->batcher = std::make_unique<traversal::FiberBatcher>(batcher, worker->evaluator.get());
    if (rollout_evaluators) {
      worker->rollout_evaluator = rollout_evaluators(w);
      worker->rollout_batcher =
          std::make_unique<traversal::FiberBatcher>(batcher, worker->rollout_evaluator.get());
    }
    // The names were validated (SearchConfig::Validate).
    if (!self.bot.empty()) worker->self_bot = *play::MakeBot(self.bot);
    for (const RolloutSide& r : opponents) {
      worker->opponent_bots.push_back(r.bot.empty() ? nullptr : *play::MakeBot(r.bot));
    }
    workers_.push_back(std::move(worker));
  }
}

std::vector<char> Workers::RunOnModel(int n, Clock::time_point deadline,
                                      const std::function<void(int64_t)>& prepare,
                                      const Task& task) {
  std::vector<char> ran;
  const bool timed = deadline != kNoDeadline;
  const int workers = std::max(1, std::min(size(), n));
  const int64_t chunk = timed ? 4 * static_cast<int64_t>(width_) * workers : n;
  for (int64_t first = 0; first < n; first += chunk) {
    if (timed && Clock::now() >= deadline) break;
    const int64_t count = std::min<int64_t>(n - first, chunk);
    prepare(first + count);
    ran.resize(static_cast<size_t>(first + count), 0);
    RunOnThreads(workers, [&](int w) {
      const int64_t begin = first + count * w / workers;
      const int64_t end = first + count * (w + 1) / workers;
      Worker& worker = *workers_[w];
      worker.batcher->Run(end - begin, [&](int64_t i, traversal::PolicyClient& policy) {
        if (timed && Clock::now() >= deadline) return;
        task(begin + i, policy, worker);
        ran[begin + i] = 1;
      });
    });
  }
  return ran;
}

void Workers::RunRollouts(int threads, int64_t begin, int64_t n, const Task& task) {
  RunOnThreads(threads, [&](int w) {
    const int64_t from = begin + n * w / threads;
    const int64_t to = begin + n * (w + 1) / threads;
    Worker& worker = *workers_[w];
    worker.rollouts().Run(to - from, [&](int64_t i, traversal::PolicyClient& policy) {
      task(from + i, policy, worker);
    });
  });
}

void Workers::CountCalls(int64_t& calls, int64_t& batches) const {
  calls = batches = 0;
  for (const auto& worker : workers_) {
    for (const traversal::FiberBatcher* batcher :
         {worker->batcher.get(), worker->rollout_batcher.get()}) {
      if (batcher == nullptr) continue;
      calls += batcher->stats().policy_calls;
      batches += batcher->stats().batches();
    }
  }
}

}  // namespace lcfr::search
