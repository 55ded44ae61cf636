// Policy evaluation for the toy games, one of the trainer's parts: the exact exploitability and
// NashConv (engine/exact.h) of the strategy network's policy, the masked softmax of its
// outputs, with one fp32 forward per information state on the training device. Includes
// libtorch (internal to training/; Lost Cities' evaluation, torch-free, is in evaluation.h).
#ifndef LCFR_TRAINING_EXACT_EVALUATION_H_
#define LCFR_TRAINING_EXACT_EVALUATION_H_

#include <torch/types.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "engine/exact.h"
#include "engine/game.h"
#include "inference/networks.h"

namespace lcfr::training {

template <engine::EnumerableGame G>
engine::ExploitabilityResult ExactPolicyExploitability(const G& game, inference::PolicyNet& net,
                                                       torch::Device device) {
  c10::InferenceMode guard;
  const int features_size = game.EncodingSize();
  const int actions = game.num_actions();
  engine::ExactSolver<G> solver(game);
  std::vector<float> features(features_size);
  return solver.Exploitability([&](const typename G::State& s, std::span<float> out) {
    game.Encode(s, features);
    const uint32_t legal = game.LegalMask(s);
    const torch::Tensor x = torch::from_blob(features.data(), {1, features_size}).to(device);
    const torch::Tensor logits = net->forward(x).to(torch::kCPU).contiguous();
    const float* l = logits.data_ptr<float>();
    float max = -1e30f;
    for (int a = 0; a < actions; ++a) {
      if (legal >> a & 1) max = std::max(max, l[a]);
    }
    double total = 0;
    for (int a = 0; a < actions; ++a) {
      out[a] = (legal >> a & 1) ? std::exp(l[a] - max) : 0.0f;
      total += out[a];
    }
    for (int a = 0; a < actions; ++a) out[a] = static_cast<float>(out[a] / total);
  });
}

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_EXACT_EVALUATION_H_
