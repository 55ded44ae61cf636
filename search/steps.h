// The steps a searching player is built from (search/player.h), each a small interface with the
// product's implementation here and the experimental ones in search/experimental/ (picked once,
// by search/player.cc's MakeSteps):
//  - WorldSource: the world of each round (uniform redeals; the belief; the oracles);
//  - Allocator: how the rounds are spread over the candidates (uniform; racing);
//  - LeafValue: where a rollout stops (the end of the game; the value network after D decisions).
// Torch-free.
#ifndef LCFR_SEARCH_STEPS_H_
#define LCFR_SEARCH_STEPS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/lost_cities.h"
#include "engine/worlds.h"
#include "search/config.h"
#include "search/report.h"
#include "search/workers.h"
#include "traversal/fiber_batcher.h"

namespace lcfr::search {

// What a decision's steps may read: the game, the state searched (what its mover knows; eval
// hands the full state, which only the oracles read), the decision's seed and budget.
struct Decision {
  const engine::LostCities* game = nullptr;
  const engine::State* state = nullptr;
  uint64_t seed = 0;
  int planned = 0;  // the most rounds the decision may play (Allocator::PlannedRounds)
  Clock::time_point worlds_deadline = kNoDeadline;  // when world drawing must stop
  // The game's moves as the mover saw them, and whether they are the whole past of `state`.
  const std::vector<engine::SeenMove>* seen = nullptr;
  bool knows_past = false;
  SearchReport* report = nullptr;  // the player's totals, for the steps' own figures
  SearchDecision* last = nullptr;  // this decision's figures
};

// The results of a decision's rounds: payoff(r, k) of candidate k in round r (the mover's score
// difference / 100), NaN where it was not played, and the objective's value of it.
class RoundResults {
 public:
  RoundResults(int count, Objective objective) : count_(count), objective_(objective) {}
  int count() const { return count_; }
  int rounds() const { return static_cast<int>(payoff_.size() / count_); }
  // Grows to `rounds` rounds (the new ones unplayed); never while rollouts run.
  void Resize(int rounds);
  double& payoff(int r, int k) { return payoff_[static_cast<size_t>(r) * count_ + k]; }
  char& cut(int r, int k) { return cut_[static_cast<size_t>(r) * count_ + k]; }
  // The objective's result: the payoff, or 1 / 0.5 / 0 for a win, a tie, a loss (NaN stays).
  double Value(int r, int k) const;
  // The mean of k's values over the rounds in [0, end) where it was played (-inf: none).
  double Mean(int k, int end) const;
  // Whether k's paired difference to j over the rounds in [0, end) where both were played is
  // below zero by more than z standard errors (it trails j clearly; needs two rounds).
  bool Trails(int k, int j, int end, double z) const;
  int64_t played() const;  // rollouts played
  int64_t cuts() const;    // of them, those the leaf value ended

 private:
  int count_;
  Objective objective_;
  std::vector<double> payoff_;
  std::vector<char> cut_;
};

class WorldSource {
 public:
  virtual ~WorldSource() = default;
  // Once per decision before any round: draws what the source needs (the belief's worlds, on
  // `workers`' batchers, until decision.worlds_deadline). False when it has nothing for this
  // decision (the belief without the game's moves): the decision's worlds are then uniform.
  virtual bool Prepare(const Decision& decision, Workers& workers) = 0;
  // Makes rounds [0, rounds) ready (draws their picks); called before they run.
  virtual void Extend(int rounds) { (void)rounds; }
  // The world of round r, from its stream `rng`; may run on any worker's fiber.
  virtual engine::State World(int round, Rng& rng) const = 0;
};

// Every round a new world: the hidden cards dealt anew, uniformly (engine/worlds.h).
class UniformWorlds : public WorldSource {
 public:
  bool Prepare(const Decision& decision, Workers&) override;
  engine::State World(int round, Rng& rng) const override;

 private:
  Decision decision_;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // The most rounds a decision of `count` candidates can play on a budget of `rollouts`.
  virtual int PlannedRounds(int rollouts, int count) const = 0;
  // The rounds of phase p (0 ends the decision), given the candidates still rolled out and the
  // rollouts of the phases before.
  virtual int PhaseRounds(int phase, int active, int64_t planned_rollouts, int rollouts,
                          int count) const = 0;
  // After a phase whose rounds end at `end`: the candidates that go on (`kb`, the blueprint's
  // choice, always does). True when the decision is done.
  virtual bool AfterPhase(const RoundResults& results, int end, int kb, double threshold,
                          std::vector<int>& active) const = 0;
};

// One phase: every candidate in every round, max(1, rollouts / candidates) rounds.
class UniformAllocator : public Allocator {
 public:
  int PlannedRounds(int rollouts, int count) const override;
  int PhaseRounds(int phase, int active, int64_t planned_rollouts, int rollouts,
                  int count) const override;
  bool AfterPhase(const RoundResults&, int, int, double, std::vector<int>&) const override {
    return true;
  }
};

class LeafValue {
 public:
  virtual ~LeafValue() = default;
  // The decisions after which a rollout stops and is scored by Value; 0: it plays to the end.
  virtual int depth() const = 0;
  // The estimate of the position `t` for `mover`, in payoff units / 100; on the rollout's fiber.
  virtual double Value(const engine::State& t, int mover, traversal::PolicyClient& policy) = 0;
};

}  // namespace lcfr::search

#endif  // LCFR_SEARCH_STEPS_H_
