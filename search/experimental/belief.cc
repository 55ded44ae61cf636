#include "search/experimental/belief.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "base/check.h"
#include "base/rng.h"
#include "play/policy_bot.h"
#include "search/experimental/oracles.h"
#include "search/opponent_inference.h"
#include "search/streams.h"

namespace lcfr::search {

bool BeliefWorlds::Prepare(const Decision& decision, Workers& workers) {
  decision_ = decision;
  picks_.reset();
  drawn_.clear();
  if (!decision.knows_past) {
    ++decision.report->belief_missing;
    return false;
  }
  const engine::LostCities& game = *decision.game;
  const engine::State& state = *decision.state;
  const int opponent = 1 - state.player;
  std::vector<double> log_likelihood;
  auto task = [&](int64_t i, traversal::PolicyClient& policy) {
    Rng rng(DeriveSeed({decision.seed, kBeliefStream, static_cast<uint64_t>(i)}));
    absl::StatusOr<engine::WorldHistory> world =
        engine::SampleWorldHistory(game, state, *decision.seen, rng);
    LCFR_CHECK(world.ok()) << "search: the game's moves do not fit the state: "
                           << world.status().message();
    play::PolicyBot model(&policy, play_, game);
    Rng unused(0);
    engine::State t = world->deal;
    double sum = 0;
    for (const int a : world->actions) {
      if (t.player == opponent) {
        model.ActOnState(game, t, unused);
        const int legal = std::popcount(game.LegalMask(t));
        sum += std::log((1 - kUniformShare) * model.probabilities()[a] + kUniformShare / legal);
      }
      game.ApplyUnchecked(t, a);
    }
    drawn_[i] = world->now;
    log_likelihood[i] = sum;
  };
  // The storage grows with the chunks the budget runs.
  const std::vector<char> ran = workers.RunOnModel(
      worlds_, decision.worlds_deadline,
      [&](int64_t end) {
        drawn_.resize(static_cast<size_t>(end));
        log_likelihood.resize(static_cast<size_t>(end), 0.0);
      },
      [&](int64_t i, traversal::PolicyClient& policy, Workers::Worker&) { task(i, policy); });
  // A world the budget left undrawn weighs nothing; none drawn: no belief.
  int drawn = 0;
  for (size_t i = 0; i < ran.size(); ++i) {
    if (ran[i]) {
      ++drawn;
    } else {
      log_likelihood[i] = -std::numeric_limits<double>::infinity();
    }
  }
  if (drawn == 0) {
    ++decision.report->belief_missing;
    return false;
  }
  std::vector<double> cumulative;
  const double ess = LikelihoodWeights(log_likelihood, power_, cumulative);
  decision.last->belief_ess = ess;
  ++decision.report->believed;
  decision.report->belief_worlds += drawn;
  decision.report->belief_ess += ess;
  const double total = cumulative.back();
  picks_ = std::make_unique<BlockPicks>(
      std::move(cumulative), total, decision.planned,
      DeriveSeed({decision.seed, kBeliefStream, ~uint64_t{0}}),
      shuffled_ ? BlockPicks::Order::kShuffledApart : BlockPicks::Order::kIndex,
      DeriveSeed({decision.seed, kBeliefStream, kRacingShuffle}));
  return true;
}

void BeliefWorlds::Extend(int rounds) {
  const bool first = picks_->picks().empty();
  picks_->Extend(rounds);
  // The diagnostic reads the first block's worlds.
  if (first) {
    const std::vector<int>& all = picks_->picks();
    const size_t block = std::min<size_t>(all.size(), BlockPicks::kBlock);
    CountHandMatch(decision_, std::vector<int>(all.begin(), all.begin() + block));
  }
}

engine::State BeliefWorlds::World(int round, Rng& rng) const {
  engine::State world = drawn_[(*picks_)[round]];
  engine::LostCities::ShuffleRemainingDeck(world, rng);
  return world;
}

void BeliefWorlds::CountHandMatch(const Decision& decision, const std::vector<int>& picks) const {
  const engine::State& state = *decision.state;
  const int unknown = engine::OpponentUnknownCards(state);
  if (unknown == 0 || picks.empty()) return;
  double sum = 0;
  for (const int i : picks) sum += OpponentHandMatch(drawn_[i], state);
  const double belief = sum / static_cast<double>(picks.size());
  const double uniform = static_cast<double>(unknown) / (unknown + state.deck_size);
  SearchReport& report = *decision.report;
  ++report.hand_matched;
  report.belief_hand_match += belief;
  report.uniform_hand_match += uniform;
  if (state.decisions >= SearchReport::kLateDecision) {
    ++report.hand_matched_late;
    report.belief_hand_match_late += belief;
    report.uniform_hand_match_late += uniform;
  }
}

}  // namespace lcfr::search
