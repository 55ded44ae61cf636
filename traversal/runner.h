// Runs an iteration's CFR traversals on several workers: each worker is a thread with its own
// Evaluator and FiberBatcher (worker_chunk_size fibers), or, with `recursive`, the plain
// one-request-at-a-time recursion that the fibers replace (the baseline of benchmarks).
//
// Determinism: traversal i of (iteration, traverser) draws from its own Rng stream
// DeriveSeed({seed, iteration, traverser, i}); worker w runs the contiguous index range
// [count * w / W, count * (w + 1) / W); samples reach the sink ordered by traversal index. So
// with an evaluator whose answer for a row does not depend on the rest of its batch, the
// samples are bit-identical for every worker count and interleave width.
#ifndef LCFR_TRAVERSAL_RUNNER_H_
#define LCFR_TRAVERSAL_RUNNER_H_

#include <algorithm>
#include <exception>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "engine/check.h"
#include "engine/game.h"
#include "engine/rng.h"
#include "traversal/cfr.h"
#include "traversal/cycle_clock.h"
#include "traversal/evaluator.h"
#include "traversal/fiber_batcher.h"
#include "traversal/samples.h"
#include "traversal/stats.h"

namespace lcfr::traversal {

struct RunnerConfig {
  int workers = 1;              // threads, each with its own evaluator; >= 1
  int worker_chunk_size = 64;   // traversals in flight per worker (fibers); >= 1
  int max_batch = 0;            // flush at this many waiting requests; 0 = worker_chunk_size
  bool recursive = false;       // plain recursion, one request in flight per worker (baseline)
  uint64_t seed = 0;            // run seed; every traversal's stream derives from it
  size_t stack_bytes = 0;       // per fiber; 0 = StackBytesForDepth(game.MaxDecisions())
  bool guard_stacks = kGuardStacksByDefault;
  CfrConfig cfr;

  absl::Status Validate() const;
};

template <engine::Game G>
class TraversalRunner {
 public:
  // Called once per worker at construction.
  using EvaluatorFactory = std::function<std::unique_ptr<Evaluator>(int worker)>;

  // Precondition: config.Validate().ok() (CHECKed).
  TraversalRunner(const G& game, const RunnerConfig& config, const EvaluatorFactory& factory)
      : game_(game), config_(config) {
    const absl::Status status = config.Validate();
    LCFR_CHECK(status.ok()) << status.message();
    BatcherConfig batcher;
    batcher.width = config.worker_chunk_size;
    batcher.max_batch = config.max_batch;
    batcher.stack_bytes =
        config.stack_bytes > 0 ? config.stack_bytes : StackBytesForDepth(game.MaxDecisions());
    batcher.guard_stacks = config.guard_stacks;
    const int slots = config.recursive ? 1 : config.worker_chunk_size;
    for (int w = 0; w < config.workers; ++w) {
      auto worker = std::make_unique<Worker>();
      worker->evaluator = factory(w);
      LCFR_CHECK(worker->evaluator != nullptr);
      if (!config.recursive) {
        worker->batcher = std::make_unique<FiberBatcher>(batcher, worker->evaluator.get());
      }
      for (int s = 0; s < slots; ++s) {
        worker->features.emplace_back(game.EncodingSize());
        worker->slot_advantage.emplace_back(game.EncodingSize(), game.num_actions());
        worker->slot_strategy.emplace_back(game.EncodingSize(), game.num_actions());
      }
      worker->advantage = SampleBuffer(game.EncodingSize(), game.num_actions());
      worker->strategy = SampleBuffer(game.EncodingSize(), game.num_actions());
      workers_.push_back(std::move(worker));
    }
  }

  // Runs traversals [0, count) for `traverser` at `iteration` and blocks until all finished.
  // Every sample goes to `sink` once, in traversal order, on this thread. If a traversal or an
  // evaluator throws, the other traversals of that worker are cancelled and the first failure
  // (lowest worker) is rethrown here once every worker has stopped; the sink gets nothing.
  void Run(int iteration, int traverser, int64_t count, SampleSink& sink) {
    LCFR_CHECK(traverser == 0 || traverser == 1);
    const int num_workers = static_cast<int>(workers_.size());
    auto body = [&](int w) {
      const int64_t begin = count * w / num_workers;
      const int64_t end = count * (w + 1) / num_workers;
      RunWorker(*workers_[w], iteration, traverser, begin, end - begin);
    };
    if (num_workers == 1) {
      body(0);
    } else {
      std::vector<std::thread> threads;
      for (int w = 0; w < num_workers; ++w) threads.emplace_back(body, w);
      for (std::thread& t : threads) t.join();
    }
    for (auto& worker : workers_) {
      if (worker->error) {
        std::exception_ptr error = worker->error;
        for (auto& other : workers_) other->ClearOutput();
        std::rethrow_exception(error);
      }
    }
    for (auto& worker : workers_) {
      std::sort(worker->blocks.begin(), worker->blocks.end(),
                [](const Block& a, const Block& b) { return a.index < b.index; });
      for (const Block& block : worker->blocks) {
        sink.Consume(block.index, {&worker->advantage, block.advantage_begin, block.advantage_count},
                     {&worker->strategy, block.strategy_begin, block.strategy_count});
      }
      worker->ClearOutput();
    }
  }

  const RunnerConfig& config() const { return config_; }
  int num_workers() const { return static_cast<int>(workers_.size()); }
  // Cumulative statistics of one worker since construction or ResetStats.
  const WorkerStats& worker_stats(int w) const {
    return workers_[w]->batcher ? workers_[w]->batcher->stats() : workers_[w]->direct_stats;
  }
  WorkerStats TotalStats() const {
    WorkerStats total;
    for (int w = 0; w < num_workers(); ++w) total.Merge(worker_stats(w));
    return total;
  }
  void ResetStats() {
    for (auto& worker : workers_) {
      if (worker->batcher) worker->batcher->stats() = WorkerStats{};
      worker->direct_stats = WorkerStats{};
    }
  }

 private:
  struct Block {
    int64_t index;
    size_t advantage_begin, advantage_count, strategy_begin, strategy_count;
  };
  struct Worker {
    std::unique_ptr<Evaluator> evaluator;
    std::unique_ptr<FiberBatcher> batcher;  // null for the plain recursion
    WorkerStats direct_stats;               // the plain recursion's statistics
    std::vector<std::vector<float>> features;  // per fiber slot
    std::vector<SampleBuffer> slot_advantage, slot_strategy;
    SampleBuffer advantage, strategy;  // this iteration's samples, in completion order
    std::vector<Block> blocks;
    std::exception_ptr error;

    void ClearOutput() {
      advantage.Clear();
      strategy.Clear();
      blocks.clear();
      error = nullptr;
    }
  };

  void RunWorker(Worker& worker, int iteration, int traverser, int64_t begin, int64_t count) {
    try {
      WorkerStats& stats = worker.batcher ? worker.batcher->stats() : worker.direct_stats;
      auto task = [&, begin](int64_t i, PolicyClient& policy) {
        const int64_t index = begin + i;
        const int slot = policy.slot();
        SampleBuffer& advantage = worker.slot_advantage[slot];
        SampleBuffer& strategy = worker.slot_strategy[slot];
        advantage.Clear();
        strategy.Clear();
        const typename CfrTraversal<G>::Params params{&game_, &config_.cfr, traverser, iteration,
                                                      index};
        engine::Rng rng(engine::DeriveSeed({config_.seed, static_cast<uint64_t>(iteration),
                                            static_cast<uint64_t>(traverser),
                                            static_cast<uint64_t>(index)}));
        CfrTraversal<G>(params, rng, policy, worker.features[slot], advantage, strategy, stats)
            .Run();
        worker.blocks.push_back({index, worker.advantage.size(), advantage.size(),
                                 worker.strategy.size(), strategy.size()});
        worker.advantage.Append(advantage);
        worker.strategy.Append(strategy);
      };
      if (worker.batcher) {
        worker.batcher->Run(count, task);
      } else {
        PolicyClient policy = PolicyClient::Direct(worker.evaluator.get(), &stats);
        for (int64_t i = 0; i < count; ++i) {
          const uint64_t start = CycleClock::Now();
          const uint64_t evaluator_before = stats.evaluator_ticks;
          task(i, policy);
          ++stats.traversals;
          stats.game_ticks += CycleClock::Now() - start - (stats.evaluator_ticks - evaluator_before);
        }
      }
    } catch (...) {
      worker.error = std::current_exception();
    }
  }

  const G& game_;
  RunnerConfig config_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_RUNNER_H_
