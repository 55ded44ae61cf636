// Search at play time: Monte-Carlo rollouts of a blueprint policy from worlds consistent with
// what the player to move knows (Tesauro & Galperin's rollouts; Lerer et al.'s single-agent
// SPARTA rule for when to leave the blueprint). Torch-free: the networks are asked through
// traversal::Evaluator, and every rollout is a fiber of a per-worker FiberBatcher, so the
// rollouts' policy calls are served in batches exactly as the traversals' are.
//
// One decision (SearchPlayer::ActOnState), the mover's payoffs in units of 100 points:
//  1. The blueprint (the model's policy, or a scripted bot) gives its own choice b: what it
//     would play without search, drawn from the decision's random stream; for the model also its
//     distribution over the legal actions.
//  2. The candidates: the blueprint's M most probable (default 4; ties: lower action id first)
//     together with b, or every legal action (M = 0, or a bot blueprint, which gives no
//     ranking). A single candidate is played at once, without rollouts. With turn_draws K at a
//     card decision the candidates are pairs: each such card action with the K draws the
//     blueprint finds most probable after it (below).
//  3. Rounds r = 0, 1, ...: a world W_r (engine/worlds.h: the hidden cards dealt anew, uniformly;
//     with K > 0 worlds, round r reuses world r mod K) and for every candidate a one rollout: a
//     applied to W_r, then the rollout policies (one for the searching player's side, one for
//     its opponent's) to the end of the game, or, with rollout_depth D, for D decisions and then
//     the value network's estimate. All the candidates of a round share the world and the
//     random stream (common random numbers), so their differences are paired. With several
//     opponent policies each round also draws the one that plays the opponent, by a posterior
//     inferred from the opponent's moves (SearchConfig::opponent_worlds).
//  4. The budget: max(1, rollouts / candidates) rounds, cut short when move_time_ms passes first
//     (a rollout that has not started by then is skipped; a round counts only when all of its
//     rollouts ran). With allocation "halving" the rounds come in phases, and after each the
//     worse half of the candidates but b stops being rolled out; with "racing" a candidate
//     stops once it trails the best or b by drop_threshold standard errors, its share of the
//     budget goes to the others, and the decision ends when none but b is left or one clearly
//     beats b (SearchConfig::allocation).
//  5. The candidate a* with the best mean is played if its mean beats b's by more than
//     `threshold` standard errors of the paired differences y_r(a*) - y_r(b); otherwise b. With a
//     single round the standard error is unknown, and b is played unless the threshold is 0.
//
// Deterministic given the seed (the Rng the game hands to ActOnState) and a budget in rollouts,
// for any widths and worker counts when the evaluator's rows do not depend on their batch: the
// result of rollout (r, a) depends on the decision's seed, r and a alone, and the means are summed
// in round order.
//
// Cost: each rollout plays the rest of the game, one policy call per decision (about 50 from the
// middle of a game), so a decision costs about rounds x candidates x remaining decisions rows;
// rows are served `width` at a time per worker (docs/search.md has the measured figures).
#ifndef LCFR_TRAINING_SEARCH_H_
#define LCFR_TRAINING_SEARCH_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/bots.h"
#include "engine/lost_cities.h"
#include "engine/match.h"
#include "engine/worlds.h"
#include "play/play_policy.h"
#include "training/evaluation.h"
#include "traversal/cfr.h"
#include "traversal/evaluator.h"
#include "traversal/fiber_batcher.h"

namespace lcfr::training {

struct SearchConfig {
  int rollouts = 500;    // budget per decision, in rollouts (all candidates together); >= 1
  int move_time_ms = 0;  // budget per decision in milliseconds; 0 = none
  int worlds = 0;        // K: distinct worlds per decision; 0 = a new world every round
  // M: the blueprint's M most probable actions (and its choice); 0 = every legal action. 4
  // measured stronger than all at the same budget (benchmarks/README.md, "Search at play time").
  int candidates = 4;
  double threshold = 1.0;  // standard errors by which a* must beat the blueprint's choice
  // And by at least this much, in the means' unit (a share of rollouts won with the win
  // objective, the payoff / 100 with the score one: 0.02 is 2 points of either), whatever the
  // standard error: SPARTA's absolute threshold (Lerer et al. 2020), which keeps the blueprint
  // where the rollouts' bias, not their noise, decides a small difference. 0 = none.
  double min_gain = 0.0;
  // The policy of both players in the rollouts: "" = the blueprint itself, "model" = the model
  // with the blueprint's play policy, a play policy's name ("current", "current-greedy",
  // "average", "average-greedy": the model with that one), or a bot's name (engine::MakeBot).
  std::string rollout_policy;
  // The opponent's policy in the rollouts, named the same way; "" = rollout_policy's. The
  // searching player's own later decisions are played by rollout_policy: e.g. the model for
  // itself and a heuristic as its model of the opponent. Several, comma-separated (e.g.
  // "current,heuristic-cautious,heuristic-balanced"): the search infers which of them the
  // opponent plays from its moves so far (opponent inference, below) and rolls the opponent's
  // side out with each in proportion to its posterior.
  std::string opponent_rollout_policy;
  // Opponent inference (two or more opponent policies): at every decision, this many worlds with
  // a past (engine/worlds.h, SampleWorldHistory) are drawn, and each policy's likelihood of the
  // opponent's moves is averaged over them: each move's probability under the policy (the
  // model's distribution, a bot's Bot::Probability), mixed with 5% of uniform over the legal
  // actions. With a uniform prior, the posterior of a policy is its average likelihood over
  // their sum; every round of rollouts plays one policy, drawn by the posterior (systematic
  // resampling). It needs the game's moves (Bot::Observe); without them the prior is used.
  int opponent_worlds = 100;
  // What a rollout's result is: "score", the mover's score difference / 100 (the game's payoff,
  // what the networks were trained on), or "win": 1 for a win, 0.5 a tie, 0 a loss. "auto"
  // chooses at each decision, after its first phase of rollouts: "win" when the blueprint's
  // choice won at least 75% of them, or at most 25% (the game all but decided, where the score
  // objective spends the search on margins), "score" in between (where the score difference is
  // the less noisy measure of the same thing).
  std::string objective = "score";
  // How the rounds are spread over the candidates: "uniform", every candidate every round, or
  // "halving" (successive halving, Karnin et al. 2013): the budget is cut into phases of about
  // equal rollouts, and after each the worse half of the candidates other than the blueprint's
  // choice b drops out (by their means so far), so the last phase's two, a* and b, are compared
  // over every round: about (phases x candidates / 2) times as many as uniform gives them.
  // "racing": the rounds come in phases of 1/8 of uniform's rounds; after each, a candidate
  // other than b whose paired difference to the best candidate so far, or to b, is below zero by
  // more than drop_threshold standard errors stops being rolled out; the next phases spend the
  // budget left on the survivors; the search ends early when b alone is left, or when a single
  // other is left and beats b by more than max(drop_threshold, threshold) standard errors.
  std::string allocation = "uniform";
  // Racing's standard errors for dropping a candidate (and for ending on a clear winner).
  double drop_threshold = 2.0;
  // Rollouts cut short: after this many decisions of the rollout policy a rollout that has not
  // ended scores the value network's estimate of the position for the searching player,
  // sum_b sigma(b) Q(I, b) at the infoset I of the player to move there (sigma: the blueprint's
  // distribution; Q: the value network, on the infoset for the value scheme or the history for
  // ESCHER). 0 = every rollout plays to the end. Needs a model with a value network and the
  // score objective.
  int rollout_depth = 0;
  // The belief over the opponent's hand: with belief = N > 0 a decision first draws N worlds with
  // a past (engine/worlds.h, SampleWorldHistory: deals and moves that show the searching player
  // what it saw) and weighs each by the likelihood of the opponent's moves in it under the model's
  // policy (each move's probability mixed with 5% of uniform over its legal actions), raised to
  // the power belief_power; every round then plays one of them, drawn by those weights
  // (systematic resampling), with its deck reshuffled. It needs the game's moves (Bot::Observe:
  // matches and `lcfr play` report them; without them a decision deals uniform worlds) and a
  // model (the blueprint, or a rollout side that is the model). 0 = uniform worlds.
  int belief = 0;
  double belief_power = 1.0;
  // Whose likelihood weighs the belief's worlds: "blueprint", the model's policy (above), or
  // "opponent", the opponent's rollout policies (a bot's Bot::Probability, the model's
  // distribution): every round's world is drawn by the likelihood under the policy that plays
  // that round's opponent side, so that with opponent inference a round's world and opponent
  // policy come from their joint posterior (the inference then reads the belief's N worlds, and
  // opponent_worlds is not used). Needs no model when every opponent policy is a bot.
  std::string belief_policy = "blueprint";
  // The rollouts' networks file (--rollout-model; e.g. a student of `lcfr distill`): the
  // composition root loads it and hands SearchPlayer its evaluators, and every policy call of a
  // rollout side that plays the model (and --rollout-depth's value estimate) goes to it; the
  // blueprint's own choice and the belief stay with the blueprint's model. "" = the rollouts
  // ask the blueprint's model.
  std::string rollout_model;
  // The networks file of the opponent's side of the rollouts (--opponent-rollout-model): every
  // policy call of an opponent rollout policy that plays the model goes to it, while the
  // searching player's side stays with rollout_model (or the blueprint's model); e.g. the
  // opponent's own model as the search's model of it, and a cheap student for the searching
  // player's later moves. The composition root loads it and hands SearchPlayer its evaluators.
  // Opponent inference's likelihoods stay with the blueprint's model. "" = the opponent's side
  // asks the same model as the searching player's.
  std::string opponent_rollout_model;
  // A diagnostic that cheats (lcfr eval --oracle-hand): every round's world deals the opponent's
  // true hand from the state the search is given, and draws only the deck's order. It reads what
  // the searching player cannot see, so it is no way to play; it measures what a perfect belief
  // over the opponent's hand could gain (the ceiling of any --belief). Cannot be combined with
  // --belief (which draws the worlds itself).
  bool oracle_hand = false;
  // With oracle_hand, the deck's true order too (lcfr eval --oracle-deck): every round plays the
  // true state, and the rounds differ only in the rollout policies' own random draws. A
  // clairvoyant: no belief can know the deck's order (given all a player can know, it is
  // uniform), so what this search wins bounds from above what any choice of worlds could give
  // the same candidates, rollout policies and budget.
  bool oracle_deck = false;
  // The turn searched whole (lcfr --turn-draws K): at a card decision each candidate card action
  // a is rolled out together with each of the K draws the blueprint finds most probable after it
  // (every legal draw with a bot blueprint, which gives no ranking), so that a card action is
  // valued by its best draw, as the search will play it, rather than by the rollout policy's
  // draw. The draw follows the card action with nothing revealed between them (the card just
  // played or discarded is public), so fixing it before the world is seen is a strategy the
  // player can follow: no strategy fusion. The pairs are the decision's candidates (their
  // rounds, allocation and means as above); the best pair's card action is played when the
  // pair beats b's best pair by the threshold, else b, and the draw decision that follows is
  // searched afresh. 0 = off: the rollout policy draws.
  int turn_draws = 0;
  int workers = 1;  // threads per decision, each with its own evaluator and batcher
  int width = 128;  // rollouts in flight per thread (fibers)

  // Whether rollout_policy or one of the opponent's rollout policies names the model (with some
  // play policy); "" does not.
  bool rollouts_name_model() const;
  // The opponent's rollout policies: opponent_rollout_policy split at commas, or
  // {rollout_policy} when it is empty.
  std::vector<std::string> opponent_policies() const;
  // Whether the search infers the opponent's policy: two or more of them.
  bool infers_opponent() const { return opponent_policies().size() > 1; }
  // Errors name the command-line flag (--rollouts, --move-time-ms, --worlds, --candidates,
  // --threshold, --min-gain, --rollout-policy, --opponent-rollout-policy,
  // --opponent-worlds,
  // --objective, --allocation, --drop-threshold, --rollout-depth, --belief, --belief-power,
  // --belief-policy, --oracle-hand, --oracle-deck, --turn-draws, --workers, --search-width).
  absl::Status Validate() const;
};

// What the search plays on top of: the model's policy (`play`, served by the evaluators the
// player is built with), or a scripted bot when `bot` names one.
struct Blueprint {
  // What the model's value network (traversal::kValueNetwork) reads, for SearchConfig's
  // rollout_depth: none (the scheme trains no value network), the mover's infoset (the value
  // scheme) or the history (ESCHER: both hands, never the deck's order).
  enum class Value { kNone, kInfoset, kHistory };
  std::string bot;  // "" = the model
  play::PlayPolicy play;
  Value value = Value::kNone;
  double value_scale = 1.0;  // the value network's outputs x value_scale = payoffs / 100 points
  bool is_model() const { return bot.empty(); }
  std::string Name() const;  // "model (current)" or the bot's name
  // The value network of a model trained with `cfr` (its scheme and payoff scale).
  void SetValue(const traversal::CfrConfig& cfr);
};

// The figures of one decision.
struct SearchDecision {
  // Action ids, ascending; with turn_draws at a card decision a card action once per draw that
  // follows it (the pairs ascending by card, then draw).
  std::vector<int> candidates;
  std::vector<int> draws;        // per candidate: the draw rolled out after it, or -1 (none)
  std::vector<double> mean;      // per candidate: mean result (payoff / 100, or wins) over rounds
  std::vector<double> stderr_d;  // per candidate: standard error of (its result - b's), paired
  std::vector<int> played;       // per candidate: the rounds its mean is over
  int blueprint = -1;            // b
  int chosen = -1;
  int rounds = 0;         // complete rounds used
  double belief_ess = 0;  // the belief's effective number of worlds; 0 without a belief
  int64_t rollouts = 0;   // rollouts played (complete rounds or not)
  double seconds = 0;
  // Opponent inference: the posterior of each of the opponent's rollout policies (in
  // SearchConfig::opponent_policies() order); empty without inference.
  std::vector<double> opponent_posterior;
  bool win_objective = false;  // the means are of wins (objective win, or auto's choice)
};

// Totals over a player's decisions.
struct SearchStats {
  int64_t decisions = 0;
  int64_t searched = 0;         // decisions with more than one candidate
  int64_t deviations = 0;       // searched decisions where a* replaced the blueprint's choice
  int64_t win_objective = 0;    // searched decisions that played for wins (SearchDecision's)
  int64_t card_searched = 0;    // searched decisions of the card phase (the rest are draws)
  int64_t card_deviations = 0;  // of them, those where a* replaced the blueprint's choice
  int64_t turn_searched = 0;    // searched card decisions over card-and-draw pairs (turn_draws)
  int64_t rollouts = 0;
  int64_t rounds = 0;
  int64_t cut = 0;             // rollouts ended by the value network (rollout_depth)
  int64_t believed = 0;        // searched decisions whose worlds the belief drew
  int64_t belief_missing = 0;  // searched decisions that wanted a belief but lacked the moves
  int64_t belief_worlds = 0;   // worlds with a past drawn for the belief
  double belief_ess = 0;       // sum over believed decisions of the weights' effective size
  // A diagnostic read from the true state (eval hands the searching player the whole state; it
  // does not change play): over the believed decisions where the opponent holds unknown cards,
  // the sum of the rounds' mean engine::OpponentHandMatch, and of what uniform worlds would
  // score on average, unknown / (unknown + deck); the same from the game's kLateDecision-th
  // decision on.
  int64_t hand_matched = 0;
  double belief_hand_match = 0;
  double uniform_hand_match = 0;
  int64_t hand_matched_late = 0;
  double belief_hand_match_late = 0;
  double uniform_hand_match_late = 0;
  int64_t policy_calls = 0;  // the rollouts', the belief's and the inference's (not the root's)
  int64_t batches = 0;       // evaluator calls that served them
  double seconds = 0;        // in searched decisions
  double max_seconds = 0;
  // Opponent inference: the searched decisions whose opponent policies were weighed by its moves,
  // and per policy the sum of its posterior over them; the same over the decisions from the
  // game's kLateDecision-th on (the opponent has made about 20 moves by then).
  static constexpr int kLateDecision = 40;
  int64_t inferred = 0;
  std::vector<double> opponent_posterior;
  int64_t inferred_late = 0;
  std::vector<double> opponent_posterior_late;
  void Merge(const SearchStats& other);
  // The mean effective number of worlds the belief's weights leave, (sum w)^2 / sum w^2.
  double mean_belief_ess() const {
    return believed ? belief_ess / static_cast<double>(believed) : 0.0;
  }
  // The mean posterior of opponent policy i over the inferred decisions (late ones: from
  // kLateDecision on).
  double mean_opponent_posterior(size_t i, bool late = false) const;
  double rows_per_batch() const {
    return batches ? static_cast<double>(policy_calls) / static_cast<double>(batches) : 0.0;
  }
};

// A player that searches every decision. Not thread-safe: one per thread (it runs its own
// worker threads inside a decision).
class SearchPlayer : public engine::Bot {
 public:
  // `evaluators(w)` is called once for each of config.workers workers, here, on the calling
  // thread; it is not needed (may be empty) when neither the blueprint nor the rollout policy is
  // the model. `rollout_evaluators(w)`, the same for config.rollout_model's networks, is needed
  // exactly when that is set, and `opponent_rollout_evaluators(w)` for
  // config.opponent_rollout_model's. Errors: a bad config, an unknown bot, a model needed but no
  // evaluators, a rollout model that no rollout side plays (an opponent rollout model that no
  // opponent side plays).
  static absl::StatusOr<std::unique_ptr<SearchPlayer>> Create(
      const engine::LostCities& game, const Blueprint& blueprint, const SearchConfig& config,
      const EvaluatorFactory& evaluators, const EvaluatorFactory& rollout_evaluators = {},
      const EvaluatorFactory& opponent_rollout_evaluators = {});
  ~SearchPlayer() override;

  // Searches from the state (engine::Bot::ActOnState); reads only what its mover knows.
  int ActOnState(const engine::LostCities& game, const engine::State& state,
                 engine::Rng& rng) override;
  // Not available: a view lacks the discard piles' order. Aborts; callers use ActOnState.
  int Act(const engine::LostCities& game, const engine::View& view, engine::Rng& rng) override;
  std::string Name() const override;
  // The rules it was built for: its worlds, candidates and rollout players are sized by them.
  std::optional<engine::Rules> BoundRules() const override { return game_.rules(); }
  // Keeps the move as `seat` saw it (engine::SeeMove), for the belief; a game's first decision
  // starts a new record.
  void Observe(const engine::LostCities& game, const engine::State& before, int action,
               int seat) override;
  // Drops both seats' records (a position without its past is searched as if the game's moves
  // were unknown: opponent inference keeps its prior, the belief draws uniform worlds).
  void Forget() override;

  const SearchStats& stats() const { return stats_; }
  const SearchDecision& last_decision() const { return last_; }

 private:
  struct Worker;
  SearchPlayer(const engine::LostCities& game, const Blueprint& blueprint,
               const SearchConfig& config);
  // The blueprint's choice, with its distribution in `probabilities` (empty for a bot).
  int BlueprintChoice(const engine::State& state, engine::Rng& rng,
                      std::vector<float>& probabilities);
  // One rollout, the worker's rollout policies for the two sides (the model through `policy`);
  // `cut` is set when the value network ended it. `opponent`: the index of the opponent's rollout
  // policy. `draw` (-1: none) is applied after `action` (turn_draws), before the rollout policies
  // play. Past `deadline` (time_point::max(): none) it stops and returns NaN (not played).
  double Rollout(const engine::State& world, int action, int draw, uint64_t stream, int opponent,
                 std::chrono::steady_clock::time_point deadline, traversal::PolicyClient& policy,
                 Worker& worker, bool& cut);
  // The draws searched after card action `card` (turn_draws): its state's legal draws, the
  // blueprint's K most probable (ties: the lower action) or all of them for a bot blueprint;
  // `preferred` is the blueprint's own (the model's most probable draw, the bot's choice).
  std::vector<int> TurnDraws(const engine::State& state, int card, uint64_t seed, int& preferred);
  // The value network's estimate of `t` for `mover` (rollout_depth), in payoff units / 100.
  double CutValue(const engine::State& t, int mover, traversal::PolicyClient& policy);
  // seen_[seat] for a decision in `state`, emptied at a game's first decision (a new game), which
  // Observe (before the move) or the belief (at the searcher's opening decision) meets first.
  std::vector<engine::SeenMove>& Record(int seat, const engine::State& state);
  // Whether `seen` is the whole past of `state` (one move per decision; none only at the deal).
  bool KnowsPast(const engine::State& state, const std::vector<engine::SeenMove>& seen) const;
  // The belief's worlds for a decision in `state`, drawn until `deadline`: `worlds` (the drawn
  // worlds' present states) and `cumulative`, the running sums of their weights (an undrawn world
  // weighs 0). False when the game's moves are not at hand or no world was drawn in time.
  bool Believe(const engine::State& state, uint64_t seed,
               std::chrono::steady_clock::time_point deadline, std::vector<engine::State>& worlds,
               std::vector<double>& cumulative);
  // A decision's belief over `worlds` worlds with effective number `ess`, into last_ and stats_.
  void CountBelief(int worlds, double ess);
  // The hand-match diagnostic of the rounds' worlds (worlds[picks[r]]) against the true `state`.
  void CountHandMatch(const engine::State& state, const std::vector<engine::State>& worlds,
                      const std::vector<int>& picks);
  // task(i, policy, worker) for i in [0, n), contiguous ranges spread over the workers, each a
  // fiber of its worker's batcher (the player's model): the belief's and the inference's worlds.
  // Timed by `deadline` (time_point::max(): none), the tasks run in chunks with the clock read
  // between them, and a task that would start after it is skipped. prepare(end) is called on the
  // calling thread before the tasks below `end` run (to size their storage). Returns, per task
  // of the chunks run, whether it ran (its size: the tasks a chunk was run for).
  std::vector<char> RunOnWorkers(
      int n, std::chrono::steady_clock::time_point deadline,
      const std::function<void(int64_t)>& prepare,
      const std::function<void(int64_t, traversal::PolicyClient&, Worker&)>& task);
  // Opponent inference for a decision in `state`: the posterior of each opponent policy (the
  // prior when the game's moves are not at hand or no world was drawn by `deadline`: returns
  // false), from its moves' likelihood averaged over the worlds drawn in time. With `worlds` and
  // `log_likelihood` (the belief under the opponent's policies, belief_policy "opponent"):
  // up to config_.belief worlds with a past, their present states, and the log-likelihood of the
  // opponent's moves in world i under policy t at [i * policies + t] (-inf for a world not drawn;
  // both sized by the chunks the budget ran).
  bool InferOpponent(const engine::State& state, uint64_t seed,
                     std::chrono::steady_clock::time_point deadline, std::vector<double>& posterior,
                     std::vector<engine::State>* worlds = nullptr,
                     std::vector<double>* log_likelihood = nullptr);

  engine::LostCities game_;
  Blueprint blueprint_;
  SearchConfig config_;
  // Who plays a side of the rollouts.
  struct RolloutSide {
    std::string bot;        // a scripted bot, or "" = the model
    play::PlayPolicy play;  // the model's play policy
    int model = 0;  // its network set: 1 for the opponent rollout model (PolicyRequest::model)
  };
  RolloutSide self_;                    // the searching player's later decisions
  std::vector<RolloutSide> opponents_;  // the opponent's policies (one unless inferred)
  // SearchConfig::objective (auto picks win or score per decision, in ActOnState).
  enum class Objective { kScore, kWin, kAuto };
  Objective objective_ = Objective::kScore;
  play::PlayPolicy belief_play_;           // the model's policy that weighs the belief
  std::vector<engine::SeenMove> seen_[2];  // the current game's moves as each seat saw them
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<engine::Bot> blueprint_bot_;  // a scripted blueprint
  SearchStats stats_;
  SearchDecision last_;
};

// The belief under the opponent's policies (SearchConfig::belief_policy "opponent"): for each
// round r, played by opponent policy of_round[r] = t, the index of its world among the n =
// log_likelihood.size() / types, where log_likelihood[i * types + t] is the log-likelihood of the
// opponent's moves in world i under policy t. The rounds of each t take their worlds by
// systematic resampling from the weights exp(power x log_likelihood) (one offset from `seed`,
// then shuffled, so any prefix of them follows the weights): a round's world and its policy come
// from their joint posterior. `ess`: the weights' effective number of worlds, (sum w)^2 /
// sum w^2, averaged over the policies by `posterior`.
std::vector<int> JointBeliefPicks(const std::vector<double>& log_likelihood, int types,
                                  const std::vector<int>& of_round,
                                  const std::vector<double>& posterior, double power, uint64_t seed,
                                  double& ess);

// The searching player's match: the games, and its search figures.
struct SearchMatchResult {
  engine::MatchResult match;
  SearchStats search;
};

// `games` games of the searching player (as A) against `opponent` (as B) on PlayMatch's deals
// and seats: a bot's name, or "self", the blueprint without search. The games run on `threads`
// threads (contiguous ranges in game order), each with its own players; a player searches with
// config.workers threads of its own (1 for matches). `evaluators(i)` is called for i in
// [0, 2 x threads) before any thread starts: 2t for thread t's searching player, 2t + 1 for its
// "self" opponent. `progress(done)` is called after each game (from the game's thread, under a
// lock). With config.rollout_model, `rollout_evaluators(i)` is called for i in
// [0, threads x config.workers): t x config.workers + w for thread t's searching player's
// worker w; with config.opponent_rollout_model, `opponent_rollout_evaluators(i)` the same way.
// Deterministic given the seed and a budget in rollouts.
absl::StatusOr<SearchMatchResult> PlaySearchMatch(
    const engine::LostCities& game, const Blueprint& blueprint, const SearchConfig& config,
    const EvaluatorFactory& evaluators, const std::string& opponent, int games, uint64_t seed,
    int threads, const std::function<void(int)>& progress = {},
    const EvaluatorFactory& rollout_evaluators = {},
    const EvaluatorFactory& opponent_rollout_evaluators = {});

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_SEARCH_H_
