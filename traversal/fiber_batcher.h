// The per-worker fiber scheduler and batcher: runs many tasks (CFR traversals) as
// Boost.Context fibers; each task suspends at its policy call, and when no fiber can run (or
// flush_size requests wait) the batcher serves every waiting request with one Evaluator call
// and resumes their fibers. Finished tasks are replaced by new ones until the quota is done.
//
// Deterministic: there is no timer. Fibers run in a fixed order (the order their requests
// were served), so batch composition is a function of the tasks alone.
//
// Threading: one FiberBatcher per worker thread; not thread-safe. A PolicyClient belongs to
// one task and is used on that task's fiber only.
//
// Failure: nothing escapes a fiber. A task that throws is recorded; the batcher then cancels
// the other tasks (each resumes with a FiberCancelled exception at its policy call and unwinds
// normally, so destructors run) and throws TaskFailure on the worker thread, naming the task.
// An Evaluator that throws is handled the same way and its exception rethrown unchanged.
// Destroying a FiberBatcher with tasks in flight cancels them the same way.
//
// Task code must not swallow FiberCancelled: a catch (...) in a task must rethrow.
#ifndef LCFR_TRAVERSAL_FIBER_BATCHER_H_
#define LCFR_TRAVERSAL_FIBER_BATCHER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "traversal/counting_evaluator.h"
#include "traversal/evaluator.h"
#include "traversal/stats.h"

namespace lcfr::traversal {

// Debug and sanitizer builds guard every fiber stack with a PROT_NONE page by default.
#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__)
inline constexpr bool kGuardStacksByDefault = true;
#else
inline constexpr bool kGuardStacksByDefault = false;
#endif

// Stack bytes for a traversal of at most `max_depth` nested decisions: a fixed base plus a
// per-level allowance with a wide margin over the measured frame size (tests/traversal checks
// the peak use at the decision cap; ASan builds get 4x for their larger frames).
size_t StackBytesForDepth(int max_depth);

struct BatcherConfig {
  int width = 64;      // worker_chunk_size: tasks in flight (fibers); >= 1
  int flush_size = 0;  // flush as soon as this many requests wait; 0 = width
  size_t stack_bytes = 256 * 1024;
  bool guard_stacks = kGuardStacksByDefault;
  bool paint_stacks = false;  // fill stacks with a pattern so PeakStackBytes() can measure
};

// Thrown into a cancelled task at its policy call. Deliberately not a std::exception.
struct FiberCancelled {};

// Thrown by FiberBatcher::Step when a task threw; `cause` is the task's exception.
class TaskFailure : public std::runtime_error {
 public:
  TaskFailure(int64_t task, const std::string& what, std::exception_ptr cause)
      : std::runtime_error(what), task_(task), cause_(std::move(cause)) {}
  int64_t task() const { return task_; }
  const std::exception_ptr& cause() const { return cause_; }

 private:
  int64_t task_;
  std::exception_ptr cause_;
};

class FiberBatcher;

// How a task asks for a strategy. In a fiber it suspends until the batch is served; a direct
// client (the plain recursion, no fibers) calls the evaluator with a batch of one.
class PolicyClient {
 public:
  // A client that calls `evaluator` directly (wrap it in a CountingEvaluator to count).
  static PolicyClient Direct(Evaluator* evaluator);

  // Fills `output` with `head` of the network's outputs (traversal/evaluator.h). May suspend
  // the calling fiber; the spans must stay valid until it returns (fiber stacks stay alive
  // while suspended).
  void Evaluate(int network, Head head, std::span<const float> features, uint32_t legal_mask,
                std::span<float> output);

  // The fiber slot this task runs in, in [0, width); 0 for a direct client. Tasks use it to
  // index per-slot scratch memory.
  int slot() const { return slot_; }

 private:
  friend class FiberBatcher;
  FiberBatcher* batcher_ = nullptr;
  Evaluator* direct_ = nullptr;
  int slot_ = 0;
};

class FiberBatcher {
 public:
  using Task = std::function<void(int64_t index, PolicyClient& policy)>;

  // Allocates `width` stacks once; they are reused by every task.
  FiberBatcher(const BatcherConfig& config, Evaluator* evaluator);
  ~FiberBatcher();
  FiberBatcher(const FiberBatcher&) = delete;
  FiberBatcher& operator=(const FiberBatcher&) = delete;

  // Begins tasks 0..count-1 (task(i, client)), at most width at a time. Precondition: the
  // previous run is over (Step returned false, or it threw).
  void Start(int64_t count, Task task);
  // Runs fibers until one batch has been evaluated or every task has finished; returns false
  // when all are done. Throws TaskFailure (or the evaluator's exception) after cancelling the
  // remaining tasks.
  bool Step();
  // Start + Step until done.
  void Run(int64_t count, Task task);
  // Cancels every task in flight (they unwind); no-op when idle.
  void Cancel();

  int live_tasks() const { return live_; }
  const BatcherConfig& config() const { return config_; }
  WorkerStats& stats() { return stats_; }
  const WorkerStats& stats() const { return stats_; }
  // Deepest stack use of any fiber so far, in bytes; needs paint_stacks.
  size_t PeakStackBytes() const;

 private:
  friend class PolicyClient;
  struct Slot;

  void StartTask(int slot, int64_t index);
  void Resume(int slot);
  void Submit(int slot, const PolicyRequest& request);  // on the slot's fiber
  void Flush();
  [[noreturn]] void FailTask(int slot);

  BatcherConfig config_;
  Evaluator* evaluator_;
  int flush_size_;
  void AllocateSlots();  // the slots and their stacks; std::bad_alloc when memory runs out
  void ReleaseSlots();   // their stacks (and TSan fibers)
  std::vector<std::unique_ptr<Slot>> slots_;
  Task task_;
  int64_t count_ = 0;
  int64_t next_index_ = 0;
  int live_ = 0;
  std::deque<int> run_queue_;
  std::vector<PolicyRequest> pending_;
  std::vector<int> pending_slots_;
  WorkerStats stats_;
  CountingEvaluator counting_{evaluator_, &stats_};  // evaluator_ counted into stats_
  // The worker thread's stack, as ASan needs it to switch back (learned on first switch).
  void* thread_tsan_fiber_ = nullptr;  // the worker thread's TSan context (TSan builds)
  const void* thread_stack_bottom_ = nullptr;
  size_t thread_stack_size_ = 0;
};

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_FIBER_BATCHER_H_
