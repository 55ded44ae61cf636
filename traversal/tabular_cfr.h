// Tabular CFR driven through the very traversals Deep CFR uses: regrets live in a RegretTable
// instead of a network, and the table is updated from the samples. With external sampling this
// is external-sampling MCCFR (Lanctot et al., 2009); with the other schemes, its outcome-
// sampling and hybrid variants. Used to check the traversals' CFR math against exact
// exploitability on Kuhn and Leduc (tests/traversal) and to record convergence curves
// (benchmarks/tabular_cfr.cc).
//
// One iteration t: run `traversals_per_iteration` traversals for player 0 and add
// weight * target / traversals (times t with linear weighting, Brown & Sandholm 2019) to its
// regrets and to player 1's strategy sums; then the same for player 1 (alternating updates).
#ifndef LCFR_TRAVERSAL_TABULAR_CFR_H_
#define LCFR_TRAVERSAL_TABULAR_CFR_H_

#include <memory>
#include <span>
#include <vector>

#include "engine/game.h"
#include "traversal/evaluators.h"
#include "traversal/runner.h"
#include "traversal/samples.h"

namespace lcfr::traversal {

// One worker and FullRecordingCfrConfig() unless set otherwise.
inline RunnerConfig TabularRunnerConfig() {
  RunnerConfig runner;
  runner.workers = 1;
  runner.cfr = FullRecordingCfrConfig();
  return runner;
}

struct TabularCfrConfig {
  RunnerConfig runner = TabularRunnerConfig();
  int64_t traversals_per_iteration = 1000;
  bool linear = true;  // weight iteration t's regrets and strategies by t
};

template <engine::Game G>
class TabularCfr {
 public:
  using State = typename G::State;

  TabularCfr(const G& game, const TabularCfrConfig& config)
      : game_(game),
        config_(config),
        table_(game.num_actions()),
        runner_(game, config.runner,
                [this](int) { return std::make_unique<TabularEvaluator>(&table_); }) {}

  // One iteration for both players.
  void Iterate() {
    ++iteration_;
    const double scale =
        (config_.linear ? iteration_ : 1.0) / static_cast<double>(config_.traversals_per_iteration);
    for (int player = 0; player < 2; ++player) {
      TableSink sink(game_, &table_, scale);
      runner_.Run(iteration_, player, config_.traversals_per_iteration, sink);
    }
  }

  int iteration() const { return iteration_; }
  const RegretTable& table() const { return table_; }
  const TraversalRunner<G>& runner() const { return runner_; }

  // The average strategy at a state, as an engine::ExactSolver policy.
  void AveragePolicy(const State& s, std::span<float> out) const {
    std::vector<float> features(game_.EncodingSize());
    game_.Encode(s, features);
    table_.AverageStrategy(game_.CurrentPlayer(s), features, game_.LegalMask(s), out);
  }

 private:
  // Collects the run's samples and applies them after the workers stopped (the evaluators
  // read the table while traversals run).
  class TableSink : public CollectingSink {
   public:
    TableSink(const G& game, RegretTable* table, double scale)
        : CollectingSink(traversal::ShapeOf(game)), table_(table), scale_(scale) {}
    void EndRun() override {
      CollectingSink::EndRun();
      const SampleBuffer& advantage = samples[SampleKind::kAdvantage];
      const SampleBuffer& strategy = samples[SampleKind::kStrategy];
      table_->AddRegrets(advantage, 0, advantage.size(), scale_);
      table_->AddStrategies(strategy, 0, strategy.size(), scale_);
    }

   private:
    RegretTable* table_;
    double scale_;
  };

  const G& game_;
  TabularCfrConfig config_;
  RegretTable table_;
  TraversalRunner<G> runner_;
  int iteration_ = 0;
};

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_TABULAR_CFR_H_
