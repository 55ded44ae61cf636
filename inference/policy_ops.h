// From network outputs to strategies, batched: regret matching for advantage networks, masked
// softmax for the strategy network. Two implementations of the same function: rows on the CPU
// (a loop over the output buffer) and tensor ops (for CUDA, where they run on the device before
// the copy back). Tests check that they agree. Internal to inference/ (includes libtorch).
#ifndef LCFR_INFERENCE_POLICY_OPS_H_
#define LCFR_INFERENCE_POLICY_OPS_H_

#include <ATen/Tensor.h>

#include <cstdint>
#include <span>
#include <vector>

#include "traversal/regret_matching.h"

namespace lcfr::inference {

// One row: `outputs` are the network's raw outputs; writes probabilities over the legal actions.
void PolicyFromOutputsRow(std::span<const float> outputs, uint32_t legal, bool strategy_network,
                          traversal::RmFallback fallback, std::span<float> probabilities);

// outputs, mask: [blocks, rows, actions] float (mask 1 = legal, every row with a legal action);
// block b is a strategy network's when strategy_block[b]. Returns probabilities, same shape.
at::Tensor PolicyFromOutputs(const at::Tensor& outputs, const at::Tensor& mask,
                             const std::vector<bool>& strategy_block,
                             traversal::RmFallback fallback);

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_POLICY_OPS_H_
