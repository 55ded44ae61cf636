// The policy networks as libtorch modules, for the trainer and the evaluator. Includes libtorch:
// only inference/ and training/ .cc files include this header.
//
// A NetworkSet holds the four networks of a Deep CFR run, indexed by the network ids of
// traversal/evaluator.h: advantage network of player 0, of player 1, the strategy network and
// the value network (trained by the value scheme only).
// Each is an MLP input -> hidden_width x hidden_layers (activation) -> num_actions.
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
#include "inference/network_config.h"

namespace lcfr::inference {

class MlpImpl : public torch::nn::Cloneable<MlpImpl> {
 public:
  MlpImpl(int input_size, int output_size, const NetworkConfig& config);
  // (Re)creates the layers with fresh initialisation; Cloneable's clone() relies on it.
  void reset() override;
  // x: [rows, input_size] -> [rows, output_size] (raw advantages or logits).
  torch::Tensor forward(torch::Tensor x);

  const std::vector<torch::nn::Linear>& layers() const { return layers_; }
  Activation activation() const { return activation_; }

 private:
  int input_size_;
  int output_size_;
  NetworkConfig config_;
  std::vector<torch::nn::Linear> layers_;
  Activation activation_;
};
TORCH_MODULE(Mlp);

inline constexpr int kNumNetworks = 4;

struct NetworkSet {
  NetworkShape shape;
  std::array<Mlp, kNumNetworks> nets{Mlp(nullptr), Mlp(nullptr), Mlp(nullptr), Mlp(nullptr)};

  // Fresh networks with libtorch's default initialisation, seeded (torch::manual_seed).
  static NetworkSet Create(const NetworkShape& shape, uint64_t seed);
  // A deep copy (the trainer keeps training its own; published copies stay fixed).
  NetworkSet Clone() const;
};

// Writes the networks and their shape with libtorch serialization, atomically (a temporary
// file renamed into place).
absl::Status SaveNetworks(const NetworkSet& networks, const std::string& path);
// Reads networks saved by SaveNetworks. With `expected`, a file whose shape differs is an error
// naming the file, what it holds and what was expected.
absl::StatusOr<NetworkSet> LoadNetworks(const std::string& path,
                                        const NetworkShape* expected = nullptr);

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_NETWORKS_H_
