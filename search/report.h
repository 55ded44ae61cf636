// What a search did: one decision's figures (SearchDecision) and the totals over a player's
// decisions (SearchReport), which lcfr eval prints as text and as the "search" object of its
// JSON. Torch-free.
#ifndef LCFR_SEARCH_REPORT_H_
#define LCFR_SEARCH_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "search/config.h"

namespace lcfr::search {

// The figures of one decision.
struct SearchDecision {
  std::vector<int> candidates;   // action ids, ascending
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
  bool win_objective = false;  // the means are of wins
};

// Totals over a player's decisions.
struct SearchReport {
  int64_t decisions = 0;
  int64_t searched = 0;         // decisions with more than one candidate
  int64_t deviations = 0;       // searched decisions where a* replaced the blueprint's choice
  int64_t win_objective = 0;    // searched decisions that played for wins
  int64_t card_searched = 0;    // searched decisions of the card phase (the rest are draws)
  int64_t card_deviations = 0;  // of them, those where a* replaced the blueprint's choice
  int64_t rollouts = 0;
  int64_t rounds = 0;
  int64_t cut = 0;             // rollouts ended by the value network (rollout_depth)
  int64_t believed = 0;        // searched decisions whose worlds the belief drew
  int64_t belief_missing = 0;  // searched decisions that wanted a belief but lacked the moves
  int64_t belief_worlds = 0;   // worlds with a past drawn for the belief
  double belief_ess = 0;       // sum over believed decisions of the weights' effective size
  // A diagnostic of the belief read from the true state (eval hands the player the whole state;
  // it does not change play): over the believed decisions where the opponent holds unknown
  // cards, the sum of the rounds' mean share of them dealt right, and what uniform worlds would
  // score; the same from the game's kLateDecision-th decision on.
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
  // Opponent inference: the decisions whose opponent policies were weighed by its moves, and per
  // policy the sum of its posterior over them; the same from the game's kLateDecision-th on.
  static constexpr int kLateDecision = 40;
  int64_t inferred = 0;
  std::vector<double> opponent_posterior;
  int64_t inferred_late = 0;
  std::vector<double> opponent_posterior_late;

  void Merge(const SearchReport& other);
  double mean_belief_ess() const {
    return believed ? belief_ess / static_cast<double>(believed) : 0.0;
  }
  // The mean posterior of opponent policy i over the inferred decisions (late: from
  // kLateDecision on).
  double mean_opponent_posterior(size_t i, bool late = false) const;
  double rows_per_batch() const {
    return batches ? static_cast<double>(policy_calls) / static_cast<double>(batches) : 0.0;
  }
  // The figures, then `config`'s options (every row of its field tables, by key), then opponent
  // inference's posteriors by policy name.
  nlohmann::ordered_json ToJson(const SearchConfig& config) const;
  // The lines lcfr eval prints under a match's figures (each ends with '\n').
  std::string ToText(const SearchConfig& config) const;
};

}  // namespace lcfr::search

#endif  // LCFR_SEARCH_REPORT_H_
