// The threads of a searching player and what each holds: an evaluator of the model with a fiber
// batcher over it, a batcher over the rollout model's evaluator when the rollouts have a model of
// their own, and the scripted rollout policies. Every task runs as a fiber of a worker's batcher,
// so the policy calls of the rollouts, the belief and opponent inference are served in batches as
// the traversals' are. Torch-free.
#ifndef LCFR_SEARCH_WORKERS_H_
#define LCFR_SEARCH_WORKERS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "play/bots.h"
#include "play/play_policy.h"
#include "traversal/evaluator.h"
#include "traversal/fiber_batcher.h"

namespace lcfr::search {

using Clock = std::chrono::steady_clock;
// No deadline: an untimed decision.
inline constexpr Clock::time_point kNoDeadline = Clock::time_point::max();

// Who plays a side of the rollouts: a scripted bot, or the model with a play policy.
struct RolloutSide {
  std::string bot;  // "" = the model
  play::PlayPolicy play;
};

class Workers {
 public:
  struct Worker {
    std::unique_ptr<traversal::Evaluator> evaluator;  // the model's, or one that refuses
    std::unique_ptr<traversal::FiberBatcher> batcher;
    std::unique_ptr<traversal::Evaluator> rollout_evaluator;  // the rollout model's, or null
    std::unique_ptr<traversal::FiberBatcher> rollout_batcher;
    // The scripted rollout policies of the searching player's side and of each of the opponent's
    // policies, null for the model: one serves every fiber (bots keep no state between calls).
    std::unique_ptr<play::Bot> self_bot;
    std::vector<std::unique_ptr<play::Bot>> opponent_bots;
    traversal::FiberBatcher& rollouts() { return rollout_batcher ? *rollout_batcher : *batcher; }
  };
  using Task = std::function<void(int64_t, traversal::PolicyClient&, Worker&)>;

  // `count` workers of `width` fibers each; `evaluators(w)` (null: no model is asked, and a
  // request is an error) and `rollout_evaluators(w)` (null: the rollouts ask the model's).
  Workers(int count, int width, const traversal::EvaluatorFactory& evaluators,
          const traversal::EvaluatorFactory& rollout_evaluators, const RolloutSide& self,
          const std::vector<RolloutSide>& opponents);

  int size() const { return static_cast<int>(workers_.size()); }
  Worker& front() { return *workers_.front(); }

  // task(i, policy, worker) for i in [0, n) on the model's batchers, contiguous ranges spread
  // over the workers (the belief's and the inference's worlds). With a deadline the tasks run in
  // chunks of about 4 x width per worker with the clock read between them, a task that would
  // start after it is skipped, and prepare(end) is called on this thread before tasks below `end`
  // run (to size their storage). Returns, per task of the chunks run, whether it ran.
  std::vector<char> RunOnModel(int n, Clock::time_point deadline,
                               const std::function<void(int64_t)>& prepare, const Task& task);
  // task(i, ...) for i in [begin, begin + n) on the rollout batchers of the first `threads`
  // workers, contiguous ranges; returns when all have run.
  void RunRollouts(int threads, int64_t begin, int64_t n, const Task& task);
  // The policy calls and batches served so far on every batcher.
  void CountCalls(int64_t& calls, int64_t& batches) const;

 private:
  int width_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace lcfr::search

#endif  // LCFR_SEARCH_WORKERS_H_
