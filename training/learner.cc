#include "training/learner.h"

#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <cstring>
#include <span>

#include "inference/networks.h"
#include "training/fused_adam.h"

namespace lcfr::training {
namespace {

struct Batch {
  torch::Tensor x, target, mask, weight;
};

// The losses, per sample (before weighting).
struct MaskedMse {
  static torch::Tensor PerSample(const torch::Tensor& out, const Batch& b) {
    return ((out - b.target) * b.mask).pow(2).sum(1);
  }
};
struct StrategyMse {
  static torch::Tensor PerSample(const torch::Tensor& out, const Batch& b) {
    const torch::Tensor logits = out.masked_fill(b.mask == 0, -1e9);
    return ((torch::softmax(logits, 1) - b.target) * b.mask).pow(2).sum(1);
  }
};
struct StrategyCrossEntropy {
  static torch::Tensor PerSample(const torch::Tensor& out, const Batch& b) {
    const torch::Tensor logits = out.masked_fill(b.mask == 0, -1e9);
    return -(b.target * torch::log_softmax(logits, 1) * b.mask).sum(1);
  }
};

torch::Tensor PerSampleLoss(Loss loss, const torch::Tensor& out, const Batch& b) {
  switch (loss) {
    case Loss::kMaskedMse:
      return MaskedMse::PerSample(out, b);
    case Loss::kStrategyMse:
      return StrategyMse::PerSample(out, b);
    case Loss::kStrategyCrossEntropy:
      break;
  }
  return StrategyCrossEntropy::PerSample(out, b);
}

// Host staging for one Fit: allocated once (pinned on CUDA) and refilled every step, so a
// mini-batch costs memcpys, no allocation per sample or per step.
Batch StagingBatch(int64_t rows, int features, int actions, bool cuda) {
  const auto options = torch::TensorOptions().dtype(torch::kFloat).pinned_memory(cuda);
  return {torch::empty({rows, features}, options), torch::empty({rows, actions}, options),
          torch::empty({rows, actions}, options), torch::empty({rows}, options)};
}

}  // namespace

Loss StrategyLossOf(const OptimizerConfig& config) {
  return config.strategy_loss == StrategyLoss::kMse ? Loss::kStrategyMse
                                                    : Loss::kStrategyCrossEntropy;
}

Learner::Learner(const OptimizerConfig& config, int feature_size, int num_actions, bool cuda,
                 Communicator& comm)
    : config_(config),
      feature_size_(feature_size),
      num_actions_(num_actions),
      cuda_(cuda),
      comm_(comm),
      sync_(comm) {}

Learner::~Learner() = default;

namespace {

// Fills `host` with its rows' worth of samples drawn uniformly (with replacement) from `memory`
// and returns them on the training device (a synchronous copy from pinned memory on CUDA, so
// the staging can be refilled at once).
Batch Sample(const OptimizerConfig& config, const SampleMemory& memory, Batch& host, Rng& rng,
             bool cuda) {
  const int64_t rows = host.x.size(0);
  const int features = memory.feature_size();
  const int actions = memory.num_actions();
  float* x = host.x.data_ptr<float>();
  float* target = host.target.data_ptr<float>();
  float* mask = host.mask.data_ptr<float>();
  float* weight = host.weight.data_ptr<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = static_cast<int64_t>(rng.Next() % static_cast<uint64_t>(memory.size()));
    memory.EncodeFeatures(i, std::span<float>(x + r * features, static_cast<size_t>(features)));
    std::memcpy(target + r * actions, memory.target(i), sizeof(float) * actions);
    for (int a = 0; a < actions; ++a) {
      mask[r * actions + a] = (memory.mask(i) >> a & 1) ? 1.0f : 0.0f;
    }
    weight[r] = static_cast<float>(SampleWeight(config, memory, i));
  }
  if (!cuda) return host;
  return {host.x.to(torch::kCUDA), host.target.to(torch::kCUDA), host.mask.to(torch::kCUDA),
          host.weight.to(torch::kCUDA)};
}

}  // namespace

double Learner::Fit(inference::NetworkSet& nets, int n, const SampleMemory& memory, int steps,
                    Loss loss_kind, Rng& rng) {
  const int world = comm_.world_size();
  std::array<int64_t, 1> contributing = {memory.size() > 0 ? 1 : 0};
  comm_.AllReduceSum(contributing);
  if (contributing[0] == 0) return 0.0;
  auto& net = nets.nets[n];
  net->train();
  torch::NoGradGuard no_grad_outside_the_step;
  FusedAdam optimizer(net->parameters());
  const int64_t per_rank = std::max<int64_t>(1, config_.batch_size / static_cast<int64_t>(world));
  const int64_t rows = std::min<int64_t>(per_rank, std::max<int64_t>(1, memory.size() * 4));
  Batch staging = StagingBatch(rows, feature_size_, num_actions_, cuda_);
  double tail_loss = 0;
  int tail_steps = 0;
  for (int step = 0; step < steps; ++step) {
    const bool tail = step >= steps - std::max(1, steps / 10);
    optimizer.ZeroGrad();
    double step_loss = 0;
    if (memory.size() > 0) {
      torch::AutoGradMode grad_mode(true);
      Batch b = Sample(config_, memory, staging, rng, cuda_);
      const torch::Tensor out = net->forward(b.x);
      const torch::Tensor per_sample = PerSampleLoss(loss_kind, out, b);
      const torch::Tensor loss = (per_sample * b.weight).sum() / b.weight.sum().clamp_min(1e-12);
      loss.backward();
      if (tail) step_loss = loss.item<double>();
    }
    if (world > 1) step_loss = sync_.AllReduce(*net, contributing[0], step_loss);
    if (config_.grad_clip > 0) optimizer.ClipGradNorm(config_.grad_clip);
    optimizer.Step(config_.learning_rate);
    if (tail) {
      tail_loss += step_loss;
      ++tail_steps;
    }
  }
  net->eval();
  return tail_steps ? tail_loss / tail_steps : 0.0;
}

double GradientSync::AllReduce(inference::PolicyNetImpl& net, int64_t contributing, double loss) {
  std::vector<torch::Tensor> grads;
  int64_t total = 0;
  for (torch::Tensor& param : net.parameters()) {
    if (!param.grad().defined()) param.mutable_grad() = torch::zeros_like(param);
    grads.push_back(param.grad());
    total += param.numel();
  }
  flat_.resize(static_cast<size_t>(total + 1));
  int64_t offset = 0;
  for (const torch::Tensor& g : grads) {
    const torch::Tensor host = g.detach().to(torch::kCPU).contiguous().view({-1});
    std::memcpy(flat_.data() + offset, host.data_ptr<float>(), sizeof(float) * host.numel());
    offset += host.numel();
  }
  flat_[total] = static_cast<float>(loss);
  for (int64_t begin = 0; begin < total + 1; begin += kBucketFloats) {
    const int64_t count = std::min(kBucketFloats, total + 1 - begin);
    comm_.AllReduceSum(std::span<float>(flat_.data() + begin, static_cast<size_t>(count)));
  }
  const float scale = 1.0f / static_cast<float>(contributing);
  offset = 0;
  for (torch::Tensor& g : grads) {
    const torch::Tensor summed =
        torch::from_blob(flat_.data() + offset, g.sizes(), torch::kFloat) * scale;
    g.copy_(summed);
    offset += g.numel();
  }
  return static_cast<double>(flat_[total]) * scale;
}

}  // namespace lcfr::training
