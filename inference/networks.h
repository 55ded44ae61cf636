// The policy networks as libtorch modules, for the trainer and the evaluator. Includes libtorch:
// only inference/ and training/ .cc files include this header.
//
// A NetworkSet holds the four networks of a Deep CFR run, indexed by the network ids of
// traversal/evaluator.h: advantage network of player 0, of player 1, the strategy network and
// the value network (trained by the value scheme only).
// Each is a PolicyNet of the shape's architecture: an MLP input -> hidden_width x hidden_layers
// (activation) -> num_actions, or the cards network (inference/cards_net.h).
#ifndef LCFR_INFERENCE_NETWORKS_H_
#define LCFR_INFERENCE_NETWORKS_H_

#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "inference/cards_net.h"
#include "inference/network_config.h"

namespace lcfr::inference {

class PolicyNetImpl : public torch::nn::Cloneable<PolicyNetImpl> {
 public:
  // A network of `shape`'s architecture (network.architecture): the MLP, or the cards network
  // (inference/cards_net.h).
  explicit PolicyNetImpl(const NetworkShape& shape);
  // (Re)creates the layers with fresh initialisation; Cloneable's clone() relies on it.
  void reset() override;
  // x: [rows, input_size] -> [rows, num_actions] (raw advantages, logits or action values).
  torch::Tensor forward(torch::Tensor x);

  // Its linear layers in order (the MLP's, or CardsLayerSizes'): what the fused evaluator stacks.
  const std::vector<torch::nn::Linear>& layers() const { return layers_; }
  Activation activation() const { return activation_; }
  Architecture architecture() const { return shape_.config.architecture; }

 private:
  NetworkShape shape_;
  std::vector<torch::nn::Linear> layers_;
  Activation activation_;
  // The cards forward's constants on the device of the last input (made on first use).
  std::shared_ptr<CardsConstants> cards_constants_;
};
TORCH_MODULE(PolicyNet);

inline constexpr int kNumNetworks = 4;

struct NetworkSet {
  NetworkShape shape;
  std::array<PolicyNet, kNumNetworks> nets{PolicyNet(nullptr), PolicyNet(nullptr),
                                           PolicyNet(nullptr), PolicyNet(nullptr)};

  // Fresh networks with libtorch's default initialisation, seeded (torch::manual_seed).
  static NetworkSet Create(const NetworkShape& shape, uint64_t seed);
  // A deep copy (the trainer keeps training its own; published copies stay fixed).
  NetworkSet Clone() const;
};

// The networks and their shape as the bytes of a networks file (libtorch serialization).
absl::StatusOr<std::string> SerializeNetworks(const NetworkSet& networks);
// Writes SerializeNetworks' bytes to `path`, atomically (base/atomic_file.h).
absl::Status SaveNetworks(const NetworkSet& networks, const std::string& path);
// Reads networks saved by SaveNetworks. With `expected`, a file whose shape differs is an error
// naming the file, what it holds and what was expected.
absl::StatusOr<NetworkSet> LoadNetworks(const std::string& path,
                                        const NetworkShape* expected = nullptr);

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_NETWORKS_H_
