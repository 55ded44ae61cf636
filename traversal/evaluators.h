// Evaluators without a neural network: test doubles for the batcher and the CFR math, and the
// table behind tabular CFR (traversal/tabular_cfr.h).
#ifndef LCFR_TRAVERSAL_EVALUATORS_H_
#define LCFR_TRAVERSAL_EVALUATORS_H_

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "traversal/evaluator.h"
#include "traversal/regret_matching.h"
#include "traversal/samples.h"

namespace lcfr::traversal {

// Uniform over the legal actions: the zero-cost evaluator of the scheduler benchmarks.
class UniformEvaluator : public Evaluator {
 public:
  void Evaluate(std::span<const PolicyRequest> requests) override;
};

// A deterministic stand-in for a network: per network id, a fixed random linear map (weights
// uniform in [-1, 1] from `seed`) from features to outputs, then the request's head. Each row's
// answer depends only on (network, head, features): batch composition cannot change it.
class PseudoNetworkEvaluator : public Evaluator {
 public:
  PseudoNetworkEvaluator(int feature_size, int num_actions, uint64_t seed);
  void Evaluate(std::span<const PolicyRequest> requests) override;

 private:
  int feature_size_;
  int num_actions_;
  std::vector<float> weights_;  // [network][action][feature]
  std::vector<float> bias_;     // [network][action]
};

// Wraps an evaluator and splits every batch by network: the inner evaluator gets one call per
// network present, with that network's rows only. This is how the earlier engine served mixed
// batches (halving realized batch sizes); kept as the baseline that benchmarks compare the
// fused multi-network evaluator against.
class SplitByNetworkEvaluator : public Evaluator {
 public:
  explicit SplitByNetworkEvaluator(Evaluator* inner) : inner_(inner) {}
  void Evaluate(std::span<const PolicyRequest> requests) override;

 private:
  Evaluator* inner_;
  std::vector<PolicyRequest> group_;
};

// Cumulative regrets and average-strategy sums per infoset, keyed by (player, feature bytes)
// (engine::InfosetKey): tabular CFR with the traversals' samples as its updates. Readers
// (CurrentStrategy, AverageStrategy) may run concurrently while nobody writes.
class RegretTable {
 public:
  explicit RegretTable(int num_actions) : num_actions_(num_actions) {}

  // Regret matching of the infoset's cumulative regrets, uniform when none is positive or the
  // infoset is new.
  void CurrentStrategy(int player, std::span<const float> features, uint32_t legal,
                       std::span<float> out) const;
  // The normalised strategy sum; uniform for an infoset never recorded.
  void AverageStrategy(int player, std::span<const float> features, uint32_t legal,
                       std::span<float> out) const;
  // regret[infoset] += scale * weight * target for samples [begin, begin + count).
  void AddRegrets(const SampleBuffer& samples, size_t begin, size_t count, double scale);
  // strategy_sum[infoset] += scale * weight * target.
  void AddStrategies(const SampleBuffer& samples, size_t begin, size_t count, double scale);
  size_t size() const { return table_.size(); }

 private:
  struct Entry {
    std::vector<double> regret;
    std::vector<double> strategy_sum;
  };
  Entry& Get(int player, std::span<const float> features);
  void Add(const SampleBuffer& samples, size_t begin, size_t count, double scale,
           std::vector<double> Entry::*sums);
  const Entry* Find(int player, std::span<const float> features) const;

  int num_actions_;
  std::unordered_map<std::string, Entry> table_;
};

// Serves the advantage networks (ids 0, 1 = players) from a RegretTable's current strategies:
// regret matching of the table's cumulative regrets with tabular CFR's uniform fallback, the
// table's own head whatever regret-matching head a request names.
class TabularEvaluator : public Evaluator {
 public:
  explicit TabularEvaluator(const RegretTable* table) : table_(table) {}
  void Evaluate(std::span<const PolicyRequest> requests) override;

 private:
  const RegretTable* table_;
};

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_EVALUATORS_H_
