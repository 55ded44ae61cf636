// From network outputs to what the evaluator answers: the heads that requests name
// (traversal/evaluator.h). Two implementations of the same function: rows on the CPU
// (traversal::ApplyHead over the output buffer) and tensor ops (for CUDA, where they run on the
// device before the copy back). Tests check that they agree. Internal to inference/ (includes
// libtorch).
#ifndef LCFR_INFERENCE_POLICY_OPS_H_
#define LCFR_INFERENCE_POLICY_OPS_H_

#include <ATen/Tensor.h>

#include <cstdint>
#include <span>
#include <vector>

#include "traversal/evaluator.h"
#include "traversal/regret_matching.h"

namespace lcfr::inference {

// outputs, mask: [blocks, rows, actions] float (mask 1 = legal, every row with a legal action);
// block b's rows get heads[b]. Returns the answers, same shape. Device ops only, so that it can
// be captured in a CUDA graph.
at::Tensor PolicyFromOutputs(const at::Tensor& outputs, const at::Tensor& mask,
                             const std::vector<traversal::Head>& heads);

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_POLICY_OPS_H_
