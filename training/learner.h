// Fitting one network to one memory (Deep CFR's training step, Brown et al. 2019): mini-batches
// drawn uniformly with replacement, staged once per fit in host memory (pinned on CUDA) and
// refilled in place (features encoded from the memory's views, the rest copied); a loss per kind of
// target; Adam and gradient clipping as a few fused kernels (training/fused_adam.h); and, with
// several processes, data-parallel gradient averaging over the Communicator (GradientSync).
// Torch-free header: the networks are reached through inference::NetworkSet.
#ifndef LCFR_TRAINING_LEARNER_H_
#define LCFR_TRAINING_LEARNER_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/rng.h"
#include "training/config.h"
#include "training/distributed.h"
#include "training/memory.h"

namespace lcfr::inference {
class PolicyNetImpl;
struct NetworkSet;
}  // namespace lcfr::inference

namespace lcfr::training {

// The loss of a fit, by what its targets are (each a type in learner.cc):
// - kMaskedMse: squared error at the mask's actions (regrets, action values);
// - kStrategyMse: squared error of the masked softmax against target probabilities (the Deep
//   CFR paper's strategy loss);
// - kStrategyCrossEntropy: cross-entropy of the masked softmax against them.
// Each sample's loss is multiplied by its weight (clipped, times its iteration with linear
// weighting) and the batch's loss is the weighted mean.
enum class Loss { kMaskedMse, kStrategyMse, kStrategyCrossEntropy };

// The strategy network's loss as configured (training.strategy_loss).
Loss StrategyLossOf(const OptimizerConfig& config);

// The weight of sample i of `memory` in a fit: its importance weight, clipped at
// max_sample_weight (when > 0), times its iteration with linear weighting.
inline double SampleWeight(const OptimizerConfig& config, const SampleMemory& memory, int64_t i) {
  double w = memory.weight(i);
  if (config.max_sample_weight > 0) w = std::min(w, config.max_sample_weight);
  if (config.linear_weighting) w *= memory.iteration(i);
  return w;
}

// Sums every gradient of a network over the ranks and divides by the ranks that contributed
// (libtorch has no C++ DistributedDataParallel): the gradients are packed into one host buffer
// and all-reduced in buckets of kBucketFloats, the loss riding along. One per trainer.
class GradientSync {
 public:
  static constexpr int64_t kBucketFloats = 1 << 20;  // 4 MiB per collective

  explicit GradientSync(Communicator& comm) : comm_(comm) {}
  // Replaces each gradient of `net` with the average over the `contributing` ranks; returns the
  // mean of their `loss`. Collective.
  double AllReduce(inference::PolicyNetImpl& net, int64_t contributing, double loss);

 private:
  Communicator& comm_;
  std::vector<float> flat_;
};

class Learner {
 public:
  // `cuda`: the networks live on the CUDA device (staging is pinned, batches are copied there).
  Learner(const OptimizerConfig& config, int feature_size, int num_actions, bool cuda,
          Communicator& comm);
  ~Learner();

  // Trains network `n` of `nets` for `steps` steps on `memory` with `loss`, drawing mini-batch
  // rows from `rng`; returns the mean loss of the last tenth of the steps. With several ranks
  // each draws batch_size / world rows from its shard and the gradients are averaged over the
  // ranks that have samples before the same optimizer step everywhere (collective). Returns 0
  // without a step when no rank has a sample.
  double Fit(inference::NetworkSet& nets, int n, const SampleMemory& memory, int steps, Loss loss,
             Rng& rng);

 private:
  OptimizerConfig config_;
  int feature_size_;
  int num_actions_;
  bool cuda_;
  Communicator& comm_;
  GradientSync sync_;
};

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_LEARNER_H_
