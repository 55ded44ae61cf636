// Runs an iteration's CFR traversals on several workers: each worker is a thread with its own
// Evaluator and Scheduler (traversal/scheduler.h): worker_chunk_size fibers (FiberScheduler),
// or, with Scheduling::kDirect, the plain one-request-at-a-time recursion that the fibers
// replace (DirectScheduler, the baseline of benchmarks).
//
// Determinism: traversal i of (iteration, traverser) draws from its own Rng stream
// DeriveSeed({seed, iteration, traverser, i}); worker w runs the contiguous index range
// [count * w / W, count * (w + 1) / W); each worker streams its samples to the sink in
// traversal order (traversal/samples.h). So with an evaluator whose answer for a row does not
// depend on the rest of its batch, the samples are bit-identical for every worker count and
// interleave width.
#ifndef LCFR_TRAVERSAL_RUNNER_H_
#define LCFR_TRAVERSAL_RUNNER_H_

#include <algorithm>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "base/check.h"
#include "base/error_text.h"
#include "base/fields.h"
#include "base/rng.h"
#include "base/stream_cat.h"
#include "engine/game.h"
#include "traversal/cfr.h"
#include "traversal/cycle_clock.h"
#include "traversal/evaluator.h"
#include "traversal/fiber_batcher.h"
#include "traversal/samples.h"
#include "traversal/scheduler.h"
#include "traversal/stats.h"

namespace lcfr::traversal {

// How a worker schedules its traversals (YAML section `traversal`, with CfrConfig). The
// defaults are the default training run's (configs/default.yaml).
struct SchedulerConfig {
  int workers = 2;             // threads, each with its own evaluator; >= 1
  int worker_chunk_size = 64;  // traversals in flight per worker (fibers); >= 1
  // Flush as soon as this many requests wait (fewer: when no fiber can run); 0 =
  // worker_chunk_size. Not inference's max_rows, which splits one flush into forwards.
  int flush_size = 0;

  absl::Status Validate() const;  // the field table's ranges
};

// SchedulerConfig's field table (base/fields.h).
std::span<const Field<SchedulerConfig>> SchedulerConfigFields();

// Which Scheduler each worker gets.
enum class Scheduling {
  kFibers,  // worker_chunk_size traversals in flight as fibers, batched (FiberScheduler)
  kDirect,  // the plain recursion, one request in flight per worker (DirectScheduler)
};

struct RunnerConfig : SchedulerConfig {
  Scheduling scheduling = Scheduling::kFibers;
  uint64_t seed = 0;       // run seed; every traversal's stream derives from it
  size_t stack_bytes = 0;  // per fiber; 0 = StackBytesForDepth(game.MaxDecisions())
  bool guard_stacks = kGuardStacksByDefault;
  CfrConfig cfr;
  // An exploit run's frozen target (FixedOpponent, traversal/cfr.h); none in training.
  std::optional<FixedOpponent> fixed_opponent;

  absl::Status Validate() const;
};

template <engine::Game G>
class TraversalRunner {
 public:
  // Called once per worker at construction.

  // Precondition: config.Validate().ok() (CHECKed).
  TraversalRunner(const G& game, const RunnerConfig& config, const EvaluatorFactory& factory)
      : game_(game), config_(config) {
    const absl::Status status = config.Validate();
    LCFR_CHECK(status.ok()) << status.message();
    BatcherConfig batcher;
    batcher.width = config.worker_chunk_size;
    batcher.flush_size = config.flush_size;
    batcher.stack_bytes =
        config.stack_bytes > 0 ? config.stack_bytes : StackBytesForDepth(game.MaxDecisions());
    batcher.guard_stacks = config.guard_stacks;
    try {
      AddWorkers(game, config, batcher, factory);
    } catch (const std::bad_alloc&) {
      const bool fibers = config.scheduling != Scheduling::kDirect;
      const double mib = fibers ? static_cast<double>(batcher.stack_bytes) * config.workers *
                                      config.worker_chunk_size / (1 << 20)
                                : 0.0;
      throw std::runtime_error(StreamCat(
          "cannot allocate ", config.workers, " traversal worker(s)",
          fibers
              ? StreamCat(" x ", config.worker_chunk_size, " fibers (", batcher.stack_bytes / 1024,
                          " KiB stacks, ", static_cast<int64_t>(mib), " MiB in all)")
              : std::string(),
          ": out of memory; lower traversal.workers or traversal.worker_chunk_size"));
    }
  }

  // An exploit run's scripted target (traversal/cfr.h): it plays the seats of the fixed opponent
  // (which config.fixed_opponent must name) instead of its networks. Not owned; null: none.
  void SetScriptedOpponent(const ScriptedOpponent<G>* opponent) {
    LCFR_CHECK(opponent == nullptr || config_.fixed_opponent.has_value());
    scripted_opponent_ = opponent;
  }

  // Runs traversals [0, count) for `traverser` (0, 1, or kValueTraversal under ESCHER) at
  // `iteration` and blocks until all finished.
  // Samples stream to `sink` as traversals complete (contract in traversal/samples.h). If a
  // traversal, the sink or an evaluator throws, that worker's other traversals are cancelled
  // and the first failure (lowest worker) is rethrown here once every worker has stopped.
  void Run(int iteration, int traverser, int64_t count, SampleSink& sink) {
    Run(iteration, traverser, 0, count, sink);
  }

  // Runs traversals [first, first + count): one process's share of an iteration split over
  // several (training/distributed.h). Traversal i draws from the same stream as in a run of
  // all of them, so the shares' samples together are those of the whole range. Worker w runs
  // [first + count * w / W, first + count * (w + 1) / W).
  void Run(int iteration, int traverser, int64_t first, int64_t count, SampleSink& sink) {
    LCFR_CHECK(traverser == 0 || traverser == 1 ||
               (traverser == kValueTraversal && config_.cfr.scheme == Scheme::kEscher));
    const int num_workers = static_cast<int>(workers_.size());
    sink.BeginRun(num_workers);
    auto body = [&](int w) {
      const int64_t begin = first + count * w / num_workers;
      const int64_t end = first + count * (w + 1) / num_workers;
      RunWorker(w, iteration, traverser, begin, end - begin, sink);
    };
    std::exception_ptr error;
    if (num_workers == 1) {
      body(0);
    } else {
      // A thread that cannot start (std::system_error: the process's thread or memory limit)
      // stops the run: the started ones finish their shares, then the error is thrown.
      std::vector<std::thread> threads;
      threads.reserve(static_cast<size_t>(num_workers));
      for (int w = 0; w < num_workers; ++w) {
        try {
          threads.push_back(start_thread_([&body, w] { body(w); }));
        } catch (const std::exception& e) {
          error = std::make_exception_ptr(std::runtime_error(
              StreamCat("cannot start traversal thread ", w + 1, " of ", num_workers, ": ",
                        ErrorText(e), "; lower traversal.workers")));
          break;
        }
      }
      for (std::thread& t : threads) t.join();
    }
    for (auto& worker : workers_) {
      if (worker->error && !error) error = worker->error;
      worker->error = nullptr;
      for (auto& [index, block] : worker->parked) worker->Recycle(std::move(block));
      worker->parked.clear();
    }
    if (error) std::rethrow_exception(error);
    sink.EndRun();
  }

  const RunnerConfig& config() const { return config_; }
  // How worker threads start (std::thread by default); tests replace it to make a start fail.
  using ThreadStarter = std::function<std::thread(std::function<void()>)>;
  void set_thread_starter(ThreadStarter start) { start_thread_ = std::move(start); }
  int num_workers() const { return static_cast<int>(workers_.size()); }
  // Cumulative statistics of one worker since construction or ResetStats.
  const WorkerStats& worker_stats(int w) const { return workers_[w]->scheduler->stats(); }
  WorkerStats TotalStats() const {
    WorkerStats total;
    for (int w = 0; w < num_workers(); ++w) total.Merge(worker_stats(w));
    return total;
  }
  void ResetStats() {
    for (auto& worker : workers_) {
      worker->scheduler->stats() = WorkerStats{};
    }
  }

 private:
  // Builds each worker's evaluator, scheduler (and its fiber stacks) and sample buffers.
  void AddWorkers(const G& game, const RunnerConfig& config, const BatcherConfig& batcher,
                  const EvaluatorFactory& factory) {
    for (int w = 0; w < config.workers; ++w) {
      auto worker = std::make_unique<Worker>();
      worker->evaluator = factory(w);
      LCFR_CHECK(worker->evaluator != nullptr);
      if (config.scheduling == Scheduling::kDirect) {
        worker->scheduler = std::make_unique<DirectScheduler>(worker->evaluator.get());
      } else {
        worker->scheduler = std::make_unique<FiberScheduler>(batcher, worker->evaluator.get());
      }
      for (int s = 0; s < worker->scheduler->slots(); ++s) {
        worker->features.emplace_back(game.EncodingSize());
        worker->slots.push_back(NewBlock());
      }
      workers_.push_back(std::move(worker));
    }
  }

  // The samples of one traversal: a fiber slot's buffers while it runs, parked if it
  // finishes before an earlier traversal of its worker.
  using Block = SampleSet;
  Block NewBlock() const { return SampleSet(ShapeOf(game_)); }
  struct Worker {
    std::unique_ptr<Evaluator> evaluator;
    std::unique_ptr<Scheduler> scheduler;
    std::vector<std::vector<float>> features;  // per fiber slot
    std::vector<Block> slots;                  // per fiber slot
    std::map<int64_t, Block> parked;           // finished out of order, by traversal index
    std::vector<Block> spare;                  // cleared blocks for reuse
    int64_t next_to_emit = 0;
    std::exception_ptr error;

    void Recycle(Block&& block) {
      block.Clear();
      spare.push_back(std::move(block));
    }
  };

  // Called on the worker's thread when traversal `index` (in `slot`) has finished: emits it if
  // it is the next one in order, with every parked successor; otherwise parks it.
  void Complete(int w, int64_t index, Block& slot, SampleSink& sink) {
    Worker& worker = *workers_[w];
    if (index != worker.next_to_emit) {
      Block parked;
      if (!worker.spare.empty()) {
        parked = std::move(worker.spare.back());
        worker.spare.pop_back();
      } else {
        parked = NewBlock();
      }
      std::swap(parked, slot);  // no copy: the slot continues with the spare's buffers
      worker.parked.emplace(index, std::move(parked));
      return;
    }
    Emit(w, index, slot, sink);
    ++worker.next_to_emit;
    while (!worker.parked.empty() && worker.parked.begin()->first == worker.next_to_emit) {
      auto node = worker.parked.extract(worker.parked.begin());
      Emit(w, node.key(), node.mapped(), sink);
      worker.Recycle(std::move(node.mapped()));
      ++worker.next_to_emit;
    }
  }

  void Emit(int w, int64_t index, const Block& block, SampleSink& sink) {
    sink.Consume(w, index, WholeSet(block));
  }

  void RunWorker(int w, int iteration, int traverser, int64_t begin, int64_t count,
                 SampleSink& sink) {
    Worker& worker = *workers_[w];
    worker.next_to_emit = begin;
    try {
      WorkerStats& stats = worker.scheduler->stats();
      auto task = [&, begin](int64_t i, PolicyClient& policy) {
        const int64_t index = begin + i;
        Block& slot = worker.slots[policy.slot()];
        slot.Clear();
        const TraversalParams<G> params{&game_,
                                        &config_.cfr,
                                        traverser,
                                        iteration,
                                        index,
                                        config_.fixed_opponent ? &*config_.fixed_opponent : nullptr,
                                        scripted_opponent_};
        Rng rng(DeriveSeed({config_.seed, static_cast<uint64_t>(iteration),
                            static_cast<uint64_t>(traverser), static_cast<uint64_t>(index)}));
        RunTraversal<G>(params, rng, policy, worker.features[policy.slot()], slot, stats);
        Complete(w, index, slot, sink);
      };
      worker.scheduler->Run(count, task);
    } catch (...) {
      worker.error = std::current_exception();
    }
  }

  const G& game_;
  RunnerConfig config_;
  const ScriptedOpponent<G>* scripted_opponent_ = nullptr;
  std::vector<std::unique_ptr<Worker>> workers_;
  ThreadStarter start_thread_ = [](std::function<void()> fn) { return std::thread(std::move(fn)); };
};

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_RUNNER_H_
