// Policy evaluation for the toy games, one of the trainer's parts: the exact exploitability and
// NashConv (engine/exact.h) of the strategy network's policy, the masked softmax of its
// outputs, with one fp32 forward per information state on the training device; and of the
// policy the strategy network is fitted to, the strategy memory's weighted mean at each
// infoset. Includes libtorch (internal to training/; Lost Cities' evaluation, torch-free, is in
// evaluation.h).
#ifndef LCFR_TRAINING_EXACT_EVALUATION_H_
#define LCFR_TRAINING_EXACT_EVALUATION_H_

#include <torch/types.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/check.h"
#include "engine/exact.h"
#include "engine/game.h"
#include "inference/networks.h"
#include "training/config.h"
#include "training/iteration_metrics.h"
#include "training/learner.h"
#include "training/memory.h"
#include "traversal/cfr.h"
#include "traversal/regret_matching.h"

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

// The policy of network `net` under `head` (traversal/regret_matching.h ApplyHead) at a toy
// game's state: one fp32 forward on `device`.
template <engine::EnumerableGame G>
void NetworkPolicyAt(const G& game, inference::PolicyNet& net, traversal::Head head,
                     torch::Device device, const typename G::State& s, std::span<float> features,
                     std::span<float> out) {
  game.Encode(s, features);
  const torch::Tensor x =
      torch::from_blob(features.data(), {1, static_cast<int64_t>(features.size())}).to(device);
  const torch::Tensor y = net->forward(x).to(torch::kCPU).contiguous();
  traversal::ApplyHead(std::span<const float>(y.data_ptr<float>(), out.size()), game.LegalMask(s),
                       head, out);
}

// Replaces `values` (at the legal actions) by the uniform policy over their maxima.
inline void GreedyInPlace(uint32_t legal, std::span<float> values) {
  float best = -std::numeric_limits<float>::infinity();
  for (uint32_t m = legal; m; m &= m - 1) best = std::max(best, values[std::countr_zero(m)]);
  int ties = 0;
  for (uint32_t m = legal; m; m &= m - 1) ties += values[std::countr_zero(m)] == best;
  for (size_t a = 0; a < values.size(); ++a) {
    values[a] = (legal >> a & 1) && values[a] == best ? 1.0f / static_cast<float>(ties) : 0.0f;
  }
}

// An exploit run's exact evaluation (training/exploit.h): the exploiter, greedy over the
// advantage network of each seat, against the target as `slots` plays it; and the exact best
// response to the target, the mean over the seats (the target's exploitability).
template <engine::EnumerableGame G>
ExploitResult ExactExploitResult(const G& game, inference::NetworkSet& nets,
                                 const traversal::FixedOpponent& slots, torch::Device device) {
  c10::InferenceMode guard;
  engine::ExactSolver<G> solver(game);
  std::vector<float> features(game.EncodingSize());
  auto target = [&](const typename G::State& s, std::span<float> out) {
    const int mover = game.CurrentPlayer(s);
    NetworkPolicyAt(game, nets.nets[slots.network[mover]], slots.head, device, s, features, out);
  };
  ExploitResult r;
  double best = 0;
  for (int seat = 0; seat < 2; ++seat) {
    // The exploiter plays greedily: its most advantageous legal action, ties split evenly.
    auto played = [&](const typename G::State& s, std::span<float> out) {
      if (game.CurrentPlayer(s) != seat) return target(s, out);
      NetworkPolicyAt(game, nets.nets[traversal::AdvantageNetwork(seat)], traversal::Head::kRaw,
                      device, s, features, out);
      GreedyInPlace(game.LegalMask(s), out);
    };
    r.seat[seat] = solver.Values(played)[seat];
    best += solver.BestResponseValue(target, seat);
  }
  r.gain = 0.5 * (r.seat[0] + r.seat[1]);
  r.best_response = 0.5 * best;
  return r;
}

// The exact exploitability of the policy a perfect fit of the strategy network would play: at
// each infoset, the mean of the strategy memory's targets there, each weighted as the learner
// weighs it (SampleWeight); uniform over the legal actions at an infoset the memory never saw.
// The gap between this and ExactPolicyExploitability is the strategy network's fitting error;
// this value itself is what the advantage networks' policies and the memory's sampling reach.
// Samples are matched to infosets by their encoding, which identifies a toy game's infoset
// and its player (CHECK-fails if two infosets share one).
template <engine::EnumerableGame G>
engine::ExploitabilityResult MemoryMeanExploitability(const G& game, const SampleMemory& memory,
                                                      const OptimizerConfig& config) {
  const int actions = game.num_actions();
  std::vector<float> features(game.EncodingSize());
  auto key_of = [&] {
    return std::string(reinterpret_cast<const char*>(features.data()),
                       features.size() * sizeof(float));
  };
  engine::ExactSolver<G> solver(game);
  // Per infoset (by encoding): sum of w * target, then the sum of w.
  std::unordered_map<std::string, std::vector<double>> sums;
  for (const auto& infoset : solver.infosets()) {
    game.Encode(infoset.representative, features);
    const bool inserted = sums.try_emplace(key_of(), actions + 1, 0.0).second;
    LCFR_CHECK(inserted) << "two infosets share an encoding";
  }
  for (int64_t i = 0; i < memory.size(); ++i) {
    memory.EncodeFeatures(i, features);
    const auto it = sums.find(key_of());
    if (it == sums.end()) continue;  // not a state of this game's tree (cannot happen in a run)
    const double w = SampleWeight(config, memory, i);
    const float* target = memory.target(i);
    for (int a = 0; a < actions; ++a) it->second[a] += w * target[a];
    it->second[actions] += w;
  }
  return solver.Exploitability([&](const typename G::State& s, std::span<float> out) {
    game.Encode(s, features);
    const std::vector<double>& sum = sums.at(key_of());
    const uint32_t legal = game.LegalMask(s);
    for (int a = 0; a < actions; ++a) {
      const bool is_legal = legal >> a & 1;
      out[a] = !is_legal          ? 0.0f
               : sum[actions] > 0 ? static_cast<float>(sum[a] / sum[actions])
                                  : 1.0f / static_cast<float>(std::popcount(legal));
    }
  });
}

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_EXACT_EVALUATION_H_
