// Search at play time: Monte-Carlo rollouts of a blueprint policy from worlds consistent with what
// the player to move knows (Tesauro & Galperin's rollouts; Lerer et al.'s single-agent SPARTA rule
// for when to leave the blueprint). Torch-free: the networks are asked through
// traversal::Evaluator, and every rollout is a fiber of a per-worker FiberBatcher, so the
// rollouts' policy calls are served in batches exactly as the traversals' are.
//
// One decision (SearchPlayer::ActOnState), the mover's payoffs in units of 100 points:
//  1. The blueprint (the model's policy, or a scripted bot) gives its own choice b, drawn from
//     the decision's random stream; for the model also its distribution over the legal actions.
//  2. The candidates: the blueprint's M most probable (ties: lower action id first) together
//     with b, or every legal action (M = 0, or a bot blueprint, which gives no ranking). A single
//     candidate is played at once, without rollouts.
//  3. The worlds, and the opponent: a WorldSource (search/steps.h) gives each round's world (the
//     hidden cards dealt anew, uniformly); with several opponent policies, opponent inference
//     (search/opponent_inference.h) weighs them by the opponent's moves and each round draws the
//     one that plays the opponent.
//  4. Rounds r = 0, 1, ...: for every candidate a, one rollout: a applied to world r, then the
//     rollout policies (one for the searching player's side, one for its opponent's) to the end
//     of the game. All the candidates of a round share the world and the random stream (common
//     random numbers), so their differences are paired. The budget: max(1, rollouts /
//     candidates) rounds, cut short when move_time_ms passes first (docs/search.md, "The time
//     budget"; a round counts only when all of its rollouts ran).
//  5. The candidate a* with the best mean is played if its mean beats b's by more than
//     `threshold` standard errors of the paired differences y_r(a*) - y_r(b); otherwise b. With a
//     single round the standard error is unknown, and b is played unless the threshold is 0.
//
// Deterministic given the seed (the Rng the game hands to ActOnState) and a budget in rollouts,
// for any widths and worker counts when the evaluator's rows do not depend on their batch: the
// result of rollout (r, a) depends on the decision's seed, r and a alone, and the means are summed
// in round order.
#ifndef LCFR_SEARCH_PLAYER_H_
#define LCFR_SEARCH_PLAYER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/lost_cities.h"
#include "engine/worlds.h"
#include "play/bots.h"
#include "search/config.h"
#include "search/opponent_inference.h"
#include "search/report.h"
#include "search/steps.h"
#include "search/workers.h"
#include "traversal/evaluator.h"

namespace lcfr::search {

// A player that searches every decision. Not thread-safe: one per thread (it runs its own worker
// threads inside a decision).
class SearchPlayer : public play::Bot {
 public:
  // `evaluators(w)` is called once for each of config.workers workers, here, on the calling
  // thread; it is not needed (may be empty) when neither the blueprint, the rollouts nor the
  // belief ask the model. `rollout_evaluators(w)`, the same for config.rollout_model's networks,
  // is needed exactly when that is set. Errors name the flag: a bad config, an unknown bot, a
  // model needed but not given, a rollout model that no rollout side plays.
  static absl::StatusOr<std::unique_ptr<SearchPlayer>> Create(
      const engine::LostCities& game, const Blueprint& blueprint, const SearchConfig& config,
      const traversal::EvaluatorFactory& evaluators,
      const traversal::EvaluatorFactory& rollout_evaluators = {});
  ~SearchPlayer() override;

  // Searches from the state; reads only what its mover knows (eval's oracles excepted).
  int ActOnState(const engine::LostCities& game, const engine::State& state, Rng& rng) override;
  // Not available: a view lacks the discard piles' order. Aborts; callers use ActOnState.
  int Act(const engine::LostCities& game, const engine::View& view, Rng& rng) override;
  std::string Name() const override;
  // The rules it was built for: its worlds, candidates and rollout players are sized by them.
  std::optional<engine::Rules> BoundRules() const override { return game_.rules(); }
  // Keeps the move as `seat` saw it (engine::SeeMove), for opponent inference and the belief; a
  // game's first decision starts a new record.
  void Observe(const engine::LostCities& game, const engine::State& before, int action,
               int seat) override;
  // Drops both seats' records (a position without its past is searched as if the game's moves
  // were unknown: opponent inference keeps its prior, the belief draws uniform worlds).
  void Forget() override;

  const SearchReport& report() const { return report_; }
  const SearchDecision& last_decision() const { return last_; }

 private:
  SearchPlayer(const engine::LostCities& game, const Blueprint& blueprint,
               const SearchConfig& config);
  // Step 1: the blueprint's choice, with its distribution in `probabilities` (empty for a bot).
  int BlueprintChoice(const engine::State& state, Rng& rng, std::vector<float>& probabilities);
  // Step 2: the candidates, ascending, b among them.
  std::vector<int> Candidates(const engine::State& state, int b,
                              const std::vector<float>& probabilities) const;
  // Steps 3 and 4: the worlds, the opponent's policy of each round, and the rollouts of every
  // round the allocation plans, until the budget ends; the candidates still rolled out at the
  // end (indices into `candidates`) are left in `active`.
  RoundResults RunRounds(const engine::State& state, uint64_t seed,
                         const std::vector<int>& candidates, int kb, Clock::time_point start,
                         std::vector<int>& active);
  // One rollout: `action` applied to `world`, then the rollout policies to the end (or the leaf
  // value's depth); NaN when `deadline` passed first. `opponent`: the opponent's rollout policy.
  double Rollout(const engine::State& world, int action, uint64_t stream, int opponent,
                 Clock::time_point deadline, traversal::PolicyClient& policy,
                 Workers::Worker& worker, char& cut);
  // Step 5: each candidate's mean and paired standard error into last_, and the choice.
  int Choose(const RoundResults& results, const std::vector<int>& candidates,
             const std::vector<int>& active, int kb);
  // seen_[seat] for a decision in `state`, emptied at a game's first decision (a new game).
  std::vector<engine::SeenMove>& Record(int seat, const engine::State& state);
  // Whether `seen` is the whole past of `state` (one move per decision; none only at the deal).
  bool KnowsPast(const engine::State& state, const std::vector<engine::SeenMove>& seen) const;

  engine::LostCities game_;
  Blueprint blueprint_;
  SearchConfig config_;
  RolloutSide self_;                          // the searching player's later decisions
  std::vector<RolloutSide> opponents_;        // the opponent's policies (one unless inferred)
  std::unique_ptr<play::Bot> blueprint_bot_;  // a scripted blueprint
  std::unique_ptr<Workers> workers_;
  std::unique_ptr<OpponentInference> inference_;  // with two or more opponent policies
  // The steps (search/steps.h), picked once in Create.
  UniformWorlds uniform_worlds_;
  std::unique_ptr<WorldSource> worlds_;  // the configured source; null: uniform_worlds_
  std::unique_ptr<Allocator> allocator_;
  std::unique_ptr<LeafValue> leaf_;        // null: every rollout plays to the end
  std::vector<engine::SeenMove> seen_[2];  // the current game's moves as each seat saw them
  SearchReport report_;
  SearchDecision last_;
};

}  // namespace lcfr::search

#endif  // LCFR_SEARCH_PLAYER_H_
