// From network outputs to what the evaluator answers, batched: regret matching for advantage
// networks, masked softmax for the strategy network, the masked raw outputs for the value
// network. Two implementations of the same function: rows on the CPU
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

enum class OutputKind {
  kRegretMatching,  // advantage networks
  kSoftmax,         // the strategy network
  kValues,          // the value network: raw outputs at legal actions, 0 elsewhere
};
OutputKind OutputKindOf(int network);  // by the network ids of traversal/evaluator.h

// One row: `outputs` are the network's raw outputs; writes the answer over the legal actions.
void PolicyFromOutputsRow(std::span<const float> outputs, uint32_t legal, OutputKind kind,
                          traversal::RmFallback fallback, std::span<float> probabilities);

// outputs, mask: [blocks, rows, actions] float (mask 1 = legal, every row with a legal action);
// block b's rows are processed as kinds[b]. Returns the answers, same shape.
at::Tensor PolicyFromOutputs(const at::Tensor& outputs, const at::Tensor& mask,
                             const std::vector<OutputKind>& kinds, traversal::RmFallback fallback);

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_POLICY_OPS_H_
