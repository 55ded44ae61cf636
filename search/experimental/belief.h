// The belief over the opponent's hand (--belief N, experimental: no gain, -0.5 points,
// docs/experiments.md): a decision first draws N worlds with a past (engine/worlds.h,
// SampleWorldHistory: deals and moves that show the searching player what it saw) and weighs each
// by the likelihood of the opponent's moves in it under the model's policy (each move's
// probability mixed with 5% of uniform over its legal actions), raised to the power
// `belief_power`; every round then plays one of them, drawn by those weights (systematic
// resampling, search/resampling.h), with its deck reshuffled. It needs the game's moves (without
// them the decision's worlds are uniform). Its worlds are drawn until half a time budget.
// Torch-free.
#ifndef LCFR_SEARCH_EXPERIMENTAL_BELIEF_H_
#define LCFR_SEARCH_EXPERIMENTAL_BELIEF_H_

#include <memory>
#include <vector>

#include "play/play_policy.h"
#include "search/resampling.h"
#include "search/steps.h"

namespace lcfr::search {

class BeliefWorlds : public WorldSource {
 public:
  // `play`: the model's policy that weighs the moves; `shuffled`: draw each block of rounds'
  // worlds in a shuffled order (racing may play only the first rounds of the plan).
  BeliefWorlds(play::PlayPolicy play, int worlds, double power, bool shuffled)
      : play_(play), worlds_(worlds), power_(power), shuffled_(shuffled) {}
  bool Prepare(const Decision& decision, Workers& workers) override;
  void Extend(int rounds) override;
  engine::State World(int round, Rng& rng) const override;

 private:
  // The diagnostic of the rounds' worlds against the true state (SearchReport's hand match).
  void CountHandMatch(const Decision& decision, const std::vector<int>& picks) const;

  play::PlayPolicy play_;
  int worlds_;
  double power_;
  bool shuffled_;
  Decision decision_;
  std::vector<engine::State> drawn_;  // the worlds' present states
  std::unique_ptr<BlockPicks> picks_;
};

}  // namespace lcfr::search

#endif  // LCFR_SEARCH_EXPERIMENTAL_BELIEF_H_
