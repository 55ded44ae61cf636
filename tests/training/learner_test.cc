// The learner: each loss is the formula it claims on a hand-checked batch, a fit drives the loss
// down on learnable targets, fits are deterministic given the stream, and the data-parallel
// gradient average is the identity when every rank holds the same gradients.
#include "training/learner.h"

#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "inference/networks.h"
#include "tests/training/raw_features.h"
#include "training/fused_adam.h"

namespace lcfr::training {
namespace {

constexpr int kFeatures = 4;
constexpr int kActions = 3;
const testing::RawFeatures kRaw(kFeatures, kActions);

inference::NetworkSet SmallNets(uint64_t seed) {
  inference::NetworkShape shape;
  shape.game = "test";
  shape.input_size = kFeatures;
  shape.num_actions = kActions;
  shape.config.hidden_width = 16;
  shape.config.hidden_layers = 1;
  return inference::NetworkSet::Create(shape, seed);
}

// Targets that are a fixed function of the features: learnable.
SampleMemory LearnableMemory(Retention retention = Retention::kReservoir) {
  traversal::SampleBuffer buffer(kRaw.shape());
  Rng rng(3);
  for (int i = 0; i < 200; ++i) {
    float f[kFeatures];
    for (float& x : f) x = static_cast<float>(rng.UniformDouble() * 2 - 1);
    const size_t k = kRaw.Add(buffer, f, 0b111, 1.0f, 1, 0, i);
    buffer.target(k)[0] = f[0] + f[1];
    buffer.target(k)[1] = -f[2];
    buffer.target(k)[2] = 0.5f * f[3];
  }
  SampleMemory memory(1000, kRaw, retention);
  Rng add(1);
  memory.Add(buffer, add);
  return memory;
}

OptimizerConfig Optimizer() {
  OptimizerConfig c;
  c.batch_size = 64;
  c.learning_rate = 0.01;
  return c;
}

CATCH_TEST_CASE("Learner: a fit lowers the masked MSE on learnable targets and is deterministic",
                "[learner]") {
  Communicator single;
  Learner learner(Optimizer(), kFeatures, kActions, false, single);
  const SampleMemory memory = LearnableMemory();
  inference::NetworkSet a = SmallNets(7), b = SmallNets(7);
  Rng r1(5), r2(5), r3(5);
  const double short_fit = learner.Fit(a, 0, memory, 5, Loss::kMaskedMse, r1);
  inference::NetworkSet c = SmallNets(7);
  const double long_fit = learner.Fit(c, 0, memory, 400, Loss::kMaskedMse, r2);
  CATCH_INFO("loss after 5 steps " << short_fit << ", after 400 " << long_fit);
  CATCH_CHECK(long_fit < 0.2 * short_fit);
  // The same stream and initial weights: the same loss, bit for bit.
  CATCH_CHECK(learner.Fit(b, 0, memory, 5, Loss::kMaskedMse, r3) == short_fit);
}

CATCH_TEST_CASE("FusedAdam: the same steps as torch::optim::Adam with clip_grad_norm_",
                "[learner]") {
  // Two copies of a network, the same gradients each step (one large enough to be clipped, one
  // not): libtorch's Adam and clipping on one, the fused kernels on the other.
  inference::NetworkSet reference = SmallNets(3), fused = SmallNets(3);
  auto ref_params = reference.nets[0]->parameters();
  auto fused_params = fused.nets[0]->parameters();
  torch::optim::Adam adam(ref_params, torch::optim::AdamOptions(0.01));
  FusedAdam fused_adam(fused_params);
  torch::manual_seed(11);
  for (int step = 0; step < 4; ++step) {
    const double scale = step % 2 == 0 ? 10.0 : 0.01;
    for (size_t i = 0; i < ref_params.size(); ++i) {
      const torch::Tensor g = torch::randn_like(ref_params[i]) * scale;
      ref_params[i].mutable_grad() = g.clone();
      fused_params[i].mutable_grad() = g.clone();
    }
    torch::nn::utils::clip_grad_norm_(ref_params, 1.0);
    adam.step();
    torch::NoGradGuard no_grad;
    fused_adam.ClipGradNorm(1.0);
    fused_adam.Step(0.01);
    for (size_t i = 0; i < ref_params.size(); ++i) {
      CATCH_INFO("step " << step << ", parameter " << i);
      CATCH_CHECK(torch::allclose(ref_params[i], fused_params[i], 1e-5, 1e-6));
    }
    fused_adam.ZeroGrad();
    for (const torch::Tensor& p : fused_params) CATCH_CHECK_FALSE(p.grad().defined());
  }
}

CATCH_TEST_CASE("Learner: the strategy losses are the masked softmax's MSE and cross-entropy",
                "[learner]") {
  // One sample whose only legal actions are 0 and 2, with target (0.25, -, 0.75). A network with
  // zero weights outputs zero logits: the masked softmax is (0.5, 0, 0.5).
  traversal::SampleBuffer buffer(kRaw.shape());
  const float f[kFeatures] = {1, 2, 3, 4};
  const size_t k = kRaw.Add(buffer, f, 0b101, 1.0f, 1, 0, 0);
  buffer.target(k)[0] = 0.25f;
  buffer.target(k)[2] = 0.75f;
  SampleMemory memory(10, kRaw, Retention::kReservoir);
  Rng add(1);
  memory.Add(buffer, add);
  OptimizerConfig config = Optimizer();
  config.learning_rate = 1e-9;  // one step that changes (almost) nothing
  Communicator single;
  Learner learner(config, kFeatures, kActions, false, single);
  auto zeroed = [] {
    inference::NetworkSet nets = SmallNets(1);
    torch::NoGradGuard guard;
    for (auto& p : nets.nets[0]->parameters()) p.zero_();
    return nets;
  };
  Rng rng(1);
  inference::NetworkSet nets = zeroed();
  CATCH_CHECK(learner.Fit(nets, 0, memory, 1, Loss::kStrategyMse, rng) ==
              Approx(0.25 * 0.25 + 0.25 * 0.25).epsilon(1e-5));
  nets = zeroed();
  CATCH_CHECK(learner.Fit(nets, 0, memory, 1, Loss::kStrategyCrossEntropy, rng) ==
              Approx(-(0.25 * std::log(0.5) + 0.75 * std::log(0.5))).epsilon(1e-5));
  nets = zeroed();
  // Masked MSE against raw outputs of 0: only the legal actions count.
  CATCH_CHECK(learner.Fit(nets, 0, memory, 1, Loss::kMaskedMse, rng) ==
              Approx(0.25 * 0.25 + 0.75 * 0.75).epsilon(1e-5));
  // An empty memory trains nothing.
  SampleMemory empty(10, kRaw, Retention::kReservoir);
  nets = zeroed();
  CATCH_CHECK(learner.Fit(nets, 0, empty, 3, Loss::kMaskedMse, rng) == 0.0);
}

// A communicator that plays `world` ranks holding identical data: sums multiply by `world`.
class MirrorCommunicator : public Communicator {
 public:
  explicit MirrorCommunicator(int world) { world_size_ = world; }
  void AllReduceSum(std::span<float> data) override {
    for (float& x : data) x *= static_cast<float>(world_size_);
    ++collectives;
  }
  void AllReduceSum(std::span<int64_t> data) override {
    for (int64_t& x : data) x *= world_size_;
  }
  int collectives = 0;
};

CATCH_TEST_CASE("GradientSync: the average of identical gradients is the gradient", "[learner]") {
  inference::NetworkSet nets = SmallNets(4);
  const torch::Tensor x = torch::ones({2, kFeatures});
  nets.nets[0]->forward(x).pow(2).sum().backward();
  std::vector<torch::Tensor> before;
  for (auto& p : nets.nets[0]->parameters()) before.push_back(p.grad().clone());
  MirrorCommunicator three(3);
  GradientSync sync(three);
  CATCH_CHECK(sync.AllReduce(*nets.nets[0], 3, 0.5) == Approx(0.5));
  size_t i = 0;
  for (auto& p : nets.nets[0]->parameters()) CATCH_CHECK(torch::allclose(p.grad(), before[i++]));
  CATCH_CHECK(three.collectives == 1);  // a small network fits one bucket
  // Two of three ranks contributing: the sum over three identical ranks, divided by two.
  GradientSync partial(three);
  partial.AllReduce(*nets.nets[0], 2, 0.0);
  i = 0;
  for (auto& p : nets.nets[0]->parameters())
    CATCH_CHECK(torch::allclose(p.grad(), before[i++] * 1.5));
}

}  // namespace
}  // namespace lcfr::training
