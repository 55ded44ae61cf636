#include "inference/policy_ops.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

#include "engine/check.h"
#include "traversal/evaluator.h"

namespace lcfr::inference {

OutputKind OutputKindOf(int network) {
  if (network == traversal::kStrategyNetwork) return OutputKind::kSoftmax;
  if (network == traversal::kValueNetwork) return OutputKind::kValues;
  return OutputKind::kRegretMatching;
}

void PolicyFromOutputsRow(std::span<const float> outputs, uint32_t legal, OutputKind kind,
                          traversal::RmFallback fallback, std::span<float> probabilities) {
  if (kind == OutputKind::kRegretMatching) {
    traversal::RegretMatching(outputs, legal, probabilities, fallback);
    return;
  }
  if (kind == OutputKind::kValues) {
    for (size_t a = 0; a < outputs.size(); ++a) {
      probabilities[a] = (legal >> a & 1) ? outputs[a] : 0.0f;
    }
    return;
  }
  const int n = static_cast<int>(outputs.size());
  float max = -std::numeric_limits<float>::infinity();
  for (int a = 0; a < n; ++a) {
    if ((legal >> a & 1) && outputs[a] > max) max = outputs[a];
  }
  double total = 0;
  for (int a = 0; a < n; ++a) {
    const float p = (legal >> a & 1) ? std::exp(outputs[a] - max) : 0.0f;
    probabilities[a] = p;
    total += p;
  }
  const float inv = static_cast<float>(1.0 / total);
  for (int a = 0; a < n; ++a) probabilities[a] *= inv;
}

at::Tensor PolicyFromOutputs(const at::Tensor& outputs, const at::Tensor& mask,
                             const std::vector<OutputKind>& kinds, traversal::RmFallback fallback) {
  LCFR_CHECK_EQ(outputs.dim(), 3);
  LCFR_CHECK_EQ(static_cast<size_t>(outputs.size(0)), kinds.size());
  const at::Tensor legal = mask > 0.5;
  const at::Tensor masked =
      outputs.masked_fill(legal.logical_not(), -std::numeric_limits<float>::infinity());
  // Regret matching: positive parts over legal actions, normalised; the fallback otherwise.
  const at::Tensor positive = outputs.clamp_min(0) * mask;
  const at::Tensor positive_sum = positive.sum(-1, /*keepdim=*/true);
  at::Tensor fallback_mass;
  if (fallback == traversal::RmFallback::kArgmax) {
    const at::Tensor best = std::get<0>(masked.max(-1, /*keepdim=*/true));
    fallback_mass = (masked == best).logical_and(legal).to(outputs.scalar_type());
  } else {
    fallback_mass = mask;
  }
  fallback_mass = fallback_mass / fallback_mass.sum(-1, true).clamp_min(1);
  const at::Tensor regret_matching =
      at::where(positive_sum > 0, positive / positive_sum.clamp_min(1e-30), fallback_mass);
  bool any_softmax = false, any_values = false, all_rm = true;
  for (OutputKind kind : kinds) {
    any_softmax |= kind == OutputKind::kSoftmax;
    any_values |= kind == OutputKind::kValues;
    all_rm &= kind == OutputKind::kRegretMatching;
  }
  if (all_rm) return regret_matching;
  const at::Tensor softmax = any_softmax ? at::softmax(masked, -1) : at::Tensor();
  const at::Tensor values = any_values ? outputs * mask : at::Tensor();
  // Block by block (device ops only, so that the function can be captured in a CUDA graph).
  at::Tensor result = regret_matching.clone();
  for (size_t b = 0; b < kinds.size(); ++b) {
    const int64_t i = static_cast<int64_t>(b);
    if (kinds[b] == OutputKind::kSoftmax) result.select(0, i).copy_(softmax.select(0, i));
    if (kinds[b] == OutputKind::kValues) result.select(0, i).copy_(values.select(0, i));
  }
  return result;
}

}  // namespace lcfr::inference
