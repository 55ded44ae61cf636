// One published version of the three networks' weights, stacked per layer for the fused
// multi-network forward. Internal to inference/ (includes libtorch).
#ifndef LCFR_INFERENCE_SNAPSHOT_H_
#define LCFR_INFERENCE_SNAPSHOT_H_

#include <ATen/Tensor.h>

#include <cstdint>
#include <vector>

#include "inference/network_config.h"
#include "inference/networks.h"

namespace lcfr::inference {

struct ModelSnapshot {
  uint64_t version = 0;
  Activation activation = Activation::kRelu;
  // Per layer, CPU float32, contiguous: weights [kNumNetworks, in, out] (x @ W), biases
  // [kNumNetworks, 1, out].
  std::vector<at::Tensor> weights;
  std::vector<at::Tensor> biases;

  static ModelSnapshot FromNetworks(const NetworkSet& networks, uint64_t version);
};

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_SNAPSHOT_H_
