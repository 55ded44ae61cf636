#include "traversal/fiber_batcher.h"

#include <algorithm>
#include <boost/context/fiber.hpp>
#include <boost/context/fixedsize_stack.hpp>
#include <boost/context/preallocated.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <boost/context/stack_traits.hpp>
#include <cstring>
#include <utility>

#include "base/check.h"
#include "base/strings.h"
#include "traversal/cycle_clock.h"

#if defined(__SANITIZE_ADDRESS__)
#define LCFR_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LCFR_ASAN_FIBERS 1
#endif
#endif

#if defined(LCFR_ASAN_FIBERS)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__SANITIZE_THREAD__)
#define LCFR_TSAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LCFR_TSAN_FIBERS 1
#endif
#endif

#if defined(LCFR_TSAN_FIBERS)
#include <sanitizer/tsan_interface.h>
#endif

namespace lcfr::traversal {
namespace ctx = boost::context;
namespace {

constexpr unsigned char kPaint = 0xA5;

// ASan must be told about every stack switch, or it reports false errors when a fiber's
// stack is unwound or reused (https://github.com/google/sanitizers/issues/189).
inline void StartSwitch([[maybe_unused]] void** fake_stack_save,
                        [[maybe_unused]] const void* bottom, [[maybe_unused]] size_t size) {
#if defined(LCFR_ASAN_FIBERS)
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
#endif
}

inline void FinishSwitch([[maybe_unused]] void* fake_stack_save,
                         [[maybe_unused]] const void** bottom_old,
                         [[maybe_unused]] size_t* size_old) {
#if defined(LCFR_ASAN_FIBERS)
  __sanitizer_finish_switch_fiber(fake_stack_save, bottom_old, size_old);
#endif
}

// ThreadSanitizer must be told about every stack switch too: each slot is one TSan fiber, made
// once and switched to just before the slot's fiber is resumed; the worker thread's own
// context is switched back to just before a fiber suspends or ends.
inline void* TsanCurrentFiber() {
#if defined(LCFR_TSAN_FIBERS)
  return __tsan_get_current_fiber();
#else
  return nullptr;
#endif
}
inline void* TsanCreateFiber() {
#if defined(LCFR_TSAN_FIBERS)
  return __tsan_create_fiber(0);
#else
  return nullptr;
#endif
}
inline void TsanDestroyFiber([[maybe_unused]] void* fiber) {
#if defined(LCFR_TSAN_FIBERS)
  __tsan_destroy_fiber(fiber);
#endif
}
inline void TsanSwitchTo([[maybe_unused]] void* fiber) {
#if defined(LCFR_TSAN_FIBERS)
  __tsan_switch_to_fiber(fiber, 0);
#endif
}

// The stack allocator handed to a fiber created on a slot's preallocated stack: the slot owns
// the memory, so completing a fiber frees nothing.
struct KeepSlotStack {
  ctx::stack_context allocate() {
    LCFR_CHECK(false) << "fiber stacks are preallocated per slot";
    return {};
  }
  void deallocate(ctx::stack_context&) noexcept {}
};

// Clears ASan's poisoning of a stack region. Frames left by a fiber that ended by unwinding, or
// by a stack that was unmapped and mapped again, would otherwise look like redzones.
inline void Unpoison([[maybe_unused]] void* bottom, [[maybe_unused]] size_t size) {
#if defined(LCFR_ASAN_FIBERS)
  ASAN_UNPOISON_MEMORY_REGION(bottom, size);
#endif
}

std::string Describe(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

}  // namespace

size_t StackBytesForDepth(int max_depth) {
#if defined(LCFR_ASAN_FIBERS)
  constexpr size_t kBase = 256 * 1024, kPerLevel = 4 * 1024;
#else
  constexpr size_t kBase = 64 * 1024, kPerLevel = 1024;
#endif
  const size_t page = ctx::stack_traits::page_size();
  const size_t bytes = kBase + static_cast<size_t>(std::max(max_depth, 0)) * kPerLevel;
  return (bytes + page - 1) / page * page;
}

struct FiberBatcher::Slot {
  ctx::stack_context stack;  // as allocated (a guard page, if any, at the low end)
  char* usable_bottom = nullptr;
  size_t usable_size = 0;
  ctx::fiber fiber;   // the task's fiber; empty when the slot is free
  ctx::fiber caller;  // the scheduler, while the task's fiber runs
  PolicyClient client;
  int64_t index = -1;
  bool finished = true;
  bool cancelled = false;
  std::exception_ptr error;
  void* fake_stack = nullptr;  // ASan's fake stack of this fiber while it is switched out
  void* tsan_fiber = nullptr;  // TSan's context of this slot (TSan builds only)
};

void PolicyClient::Evaluate(int network, Head head, std::span<const float> features,
                            uint32_t legal_mask, std::span<float> output) {
  LCFR_DCHECK(network >= 0 && network < kMaxNetworks);
  const PolicyRequest request{network, head, features, legal_mask, output};
  if (batcher_ != nullptr) {
    batcher_->Submit(slot_, request);
    return;
  }
  direct_->Evaluate({&request, 1});
}

PolicyClient PolicyClient::Direct(Evaluator* evaluator) {
  LCFR_CHECK(evaluator != nullptr);
  PolicyClient client;
  client.direct_ = evaluator;
  return client;
}

FiberBatcher::FiberBatcher(const BatcherConfig& config, Evaluator* evaluator)
    : config_(config),
      evaluator_(evaluator),
      flush_size_(config.flush_size > 0 ? config.flush_size : config.width) {
  LCFR_CHECK_GE(config.width, 1);
  LCFR_CHECK(evaluator != nullptr);
  try {
    AllocateSlots();
  } catch (...) {
    ReleaseSlots();  // the stacks allocated before the failure (std::bad_alloc)
    throw;
  }
  pending_.reserve(flush_size_);
  pending_slots_.reserve(flush_size_);
}

void FiberBatcher::AllocateSlots() {
  const size_t page = ctx::stack_traits::page_size();
  slots_.reserve(static_cast<size_t>(config_.width));
  for (int s = 0; s < config_.width; ++s) {
    auto slot = std::make_unique<Slot>();
    const BatcherConfig& config = config_;
    if (config.guard_stacks) {
      slot->stack = ctx::protected_fixedsize_stack(config.stack_bytes).allocate();
      slot->usable_size = slot->stack.size - page;  // the guard page is the lowest one
    } else {
      slot->stack = ctx::fixedsize_stack(config.stack_bytes).allocate();
      slot->usable_size = slot->stack.size;
    }
    slot->usable_bottom = static_cast<char*>(slot->stack.sp) - slot->usable_size;
    Unpoison(slot->usable_bottom, slot->usable_size);
    if (config.paint_stacks) std::memset(slot->usable_bottom, kPaint, slot->usable_size);
    slot->client.batcher_ = this;
    slot->client.slot_ = s;
    slot->tsan_fiber = TsanCreateFiber();
    slots_.push_back(std::move(slot));
  }
}

FiberBatcher::~FiberBatcher() {
  Cancel();
  ReleaseSlots();
}

void FiberBatcher::ReleaseSlots() {
  for (auto& slot : slots_) {
    if (slot->tsan_fiber != nullptr) TsanDestroyFiber(slot->tsan_fiber);
    Unpoison(slot->usable_bottom, slot->usable_size);
    if (config_.guard_stacks) {
      ctx::protected_fixedsize_stack(config_.stack_bytes).deallocate(slot->stack);
    } else {
      ctx::fixedsize_stack(config_.stack_bytes).deallocate(slot->stack);
    }
  }
  slots_.clear();
}

void FiberBatcher::Start(int64_t count, Task task) {
  LCFR_CHECK_EQ(live_, 0) << "Start while a run is in progress";
  LCFR_CHECK_GE(count, 0);
  task_ = std::move(task);
  count_ = count;
  next_index_ = 0;
  run_queue_.clear();
  for (int s = 0; s < config_.width && next_index_ < count_; ++s) {
    StartTask(s, next_index_++);
    run_queue_.push_back(s);
  }
}

void FiberBatcher::StartTask(int s, int64_t index) {
  Slot& slot = *slots_[s];
  LCFR_DCHECK(!slot.fiber);
  Unpoison(slot.usable_bottom, slot.usable_size);
  slot.index = index;
  slot.finished = false;
  slot.cancelled = false;
  slot.error = nullptr;
  slot.fake_stack = nullptr;
  slot.fiber =
      ctx::fiber(std::allocator_arg, ctx::preallocated(slot.stack.sp, slot.stack.size, slot.stack),
                 KeepSlotStack{}, [this, s](ctx::fiber&& caller) {
                   Slot& self = *slots_[s];
                   self.caller = std::move(caller);
                   FinishSwitch(nullptr, &thread_stack_bottom_, &thread_stack_size_);
                   if (!self.cancelled) {
                     try {
                       task_(self.index, self.client);
                     } catch (const FiberCancelled&) {
                       // Unwound on purpose.
                     } catch (const ctx::detail::forced_unwind&) {
                       throw;  // Boost.Context unwinding a fiber it destroys: must pass through.
                     } catch (...) {
                       self.error = std::current_exception();
                     }
                   }
                   self.finished = true;
                   StartSwitch(nullptr, thread_stack_bottom_, thread_stack_size_);
                   TsanSwitchTo(thread_tsan_fiber_);
                   return std::move(self.caller);
                 });
  ++live_;
}

void FiberBatcher::Resume(int s) {
  Slot& slot = *slots_[s];
  void* fake_stack = nullptr;
  StartSwitch(&fake_stack, slot.usable_bottom, slot.usable_size);
  thread_tsan_fiber_ = TsanCurrentFiber();
  TsanSwitchTo(slot.tsan_fiber);
  slot.fiber = std::move(slot.fiber).resume();
  FinishSwitch(fake_stack, nullptr, nullptr);
}

void FiberBatcher::Submit(int s, const PolicyRequest& request) {
  Slot& slot = *slots_[s];
  if (slot.cancelled) throw FiberCancelled{};
  pending_.push_back(request);
  pending_slots_.push_back(s);
  StartSwitch(&slot.fake_stack, thread_stack_bottom_, thread_stack_size_);
  TsanSwitchTo(thread_tsan_fiber_);
  slot.caller = std::move(slot.caller).resume();
  FinishSwitch(slot.fake_stack, &thread_stack_bottom_, &thread_stack_size_);
  if (slot.cancelled) throw FiberCancelled{};
}

bool FiberBatcher::Step() {
  const uint64_t step_start = CycleClock::Now();
  uint64_t game_ticks = 0;
  const uint64_t evaluator_before = stats_.evaluator_ticks;
  bool flushed = false;
  while (!flushed) {
    if (run_queue_.empty()) {
      if (pending_.empty()) break;  // every task has finished
      Flush();
      flushed = true;
      break;
    }
    const int s = run_queue_.front();
    run_queue_.pop_front();
    const uint64_t resume_start = CycleClock::Now();
    Resume(s);
    game_ticks += CycleClock::Now() - resume_start;
    Slot& slot = *slots_[s];
    if (slot.finished) {
      --live_;
      if (slot.error) FailTask(s);
      ++stats_.traversals;
      if (next_index_ < count_) {
        StartTask(s, next_index_++);
        run_queue_.push_back(s);
      }
    }
    if (static_cast<int>(pending_.size()) >= flush_size_) {
      Flush();
      flushed = true;
    }
  }
  const uint64_t total = CycleClock::Now() - step_start;
  const uint64_t evaluator_ticks = stats_.evaluator_ticks - evaluator_before;
  stats_.game_ticks += game_ticks;
  stats_.scheduler_ticks +=
      total > game_ticks + evaluator_ticks ? total - game_ticks - evaluator_ticks : 0;
  if (!flushed) LCFR_CHECK_EQ(live_, 0);
  return flushed;
}

void FiberBatcher::Run(int64_t count, Task task) {
  Start(count, std::move(task));
  while (Step()) {
  }
}

void FiberBatcher::Flush() {
  std::exception_ptr error;
  try {
    counting_.Evaluate(pending_);
  } catch (...) {
    error = std::current_exception();
  }
  if (error) {
    Cancel();  // outside the catch block: cancelling switches fibers
    std::rethrow_exception(error);
  }
  for (int s : pending_slots_) run_queue_.push_back(s);
  pending_.clear();
  pending_slots_.clear();
}

void FiberBatcher::FailTask(int s) {
  Slot& slot = *slots_[s];
  std::exception_ptr cause = std::exchange(slot.error, nullptr);
  const int64_t index = slot.index;
  const std::string what = Describe(cause);
  Cancel();
  throw TaskFailure(index, lcfr::StrCat("traversal task ", index, " failed: ", what),
                    std::move(cause));
}

void FiberBatcher::Cancel() {
  pending_.clear();
  pending_slots_.clear();
  run_queue_.clear();
  for (int s = 0; s < static_cast<int>(slots_.size()); ++s) {
    Slot& slot = *slots_[s];
    if (!slot.fiber) continue;
    slot.cancelled = true;
    // A cancelled task gets FiberCancelled at each policy call; one resume normally ends it.
    for (int attempt = 0; slot.fiber && !slot.finished; ++attempt) {
      LCFR_CHECK_LT(attempt, 1000) << "task " << slot.index << " ignores cancellation";
      Resume(s);
    }
    LCFR_CHECK(!slot.fiber);
    slot.error = nullptr;  // a cancelled task's own failure is moot
  }
  live_ = 0;
  next_index_ = count_;
}

size_t FiberBatcher::PeakStackBytes() const {
  LCFR_CHECK(config_.paint_stacks) << "PeakStackBytes needs BatcherConfig::paint_stacks";
  size_t peak = 0;
  for (const auto& slot : slots_) {
    size_t untouched = 0;
    while (untouched < slot->usable_size &&
           static_cast<unsigned char>(slot->usable_bottom[untouched]) == kPaint) {
      ++untouched;
    }
    peak = std::max(peak, slot->usable_size - untouched);
  }
  return peak;
}

}  // namespace lcfr::traversal
