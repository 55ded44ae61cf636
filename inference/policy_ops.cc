#include "inference/policy_ops.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "base/check.h"
#include "traversal/evaluator.h"

namespace lcfr::inference {

at::Tensor PolicyFromOutputs(const at::Tensor& outputs, const at::Tensor& mask,
                             const std::vector<traversal::Head>& heads) {
  using traversal::Head;
  LCFR_CHECK_EQ(outputs.dim(), 3);
  LCFR_CHECK_EQ(static_cast<size_t>(outputs.size(0)), heads.size());
  const at::Tensor legal = mask > 0.5;
  const at::Tensor masked =
      outputs.masked_fill(legal.logical_not(), -std::numeric_limits<float>::infinity());
  bool any[traversal::kNumHeads] = {};
  for (Head head : heads) any[static_cast<int>(head)] = true;
  // Regret matching: positive parts over legal actions, normalised; the fallback otherwise
  // (argmax with ties split, or uniform).
  const at::Tensor positive = outputs.clamp_min(0) * mask;
  const at::Tensor positive_sum = positive.sum(-1, /*keepdim=*/true);
  auto regret_matching = [&](Head head) {
    at::Tensor fallback_mass;
    if (head == Head::kRegretMatching) {
      const at::Tensor best = std::get<0>(masked.max(-1, /*keepdim=*/true));
      fallback_mass = (masked == best).logical_and(legal).to(outputs.scalar_type());
    } else {
      fallback_mass = mask;
    }
    fallback_mass = fallback_mass / fallback_mass.sum(-1, true).clamp_min(1);
    return at::where(positive_sum > 0, positive / positive_sum.clamp_min(1e-30), fallback_mass);
  };
  std::array<at::Tensor, traversal::kNumHeads> by_head;
  for (Head head :
       {Head::kRegretMatching, Head::kRegretMatchingUniform, Head::kSoftmax, Head::kRaw}) {
    const int h = static_cast<int>(head);
    if (!any[h]) continue;
    if (head == Head::kSoftmax) {
      by_head[h] = at::softmax(masked, -1);
    } else if (head == Head::kRaw) {
      by_head[h] = outputs * mask;
    } else {
      by_head[h] = regret_matching(head);
    }
  }
  if (std::all_of(heads.begin(), heads.end(), [&](Head h) { return h == heads[0]; })) {
    return by_head[static_cast<int>(heads[0])];  // one head for every block
  }
  // Block by block (device ops only, so that the function can be captured in a CUDA graph).
  at::Tensor result = at::empty_like(outputs);
  for (size_t b = 0; b < heads.size(); ++b) {
    const int64_t i = static_cast<int64_t>(b);
    result.select(0, i).copy_(by_head[static_cast<int>(heads[b])].select(0, i));
  }
  return result;
}

}  // namespace lcfr::inference
