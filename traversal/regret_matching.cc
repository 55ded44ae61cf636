#include "traversal/regret_matching.h"

#include <bit>
#include <cmath>
#include <limits>

#include "base/check.h"

namespace lcfr::traversal {
namespace {

template <typename T>
void RegretMatchingImpl(std::span<const T> adv, uint32_t legal, std::span<float> out,
                        RmFallback fallback) {
  LCFR_DCHECK_NE(legal, 0u);
  LCFR_DCHECK_EQ(adv.size(), out.size());
  const int n = static_cast<int>(out.size());
  double positive_sum = 0;
  for (int a = 0; a < n; ++a) {
    if ((legal >> a & 1) && adv[a] > 0) positive_sum += static_cast<double>(adv[a]);
  }
  if (positive_sum > 0) {
    const double inv = 1.0 / positive_sum;
    for (int a = 0; a < n; ++a) {
      out[a] = ((legal >> a & 1) && adv[a] > 0) ? static_cast<float>(adv[a] * inv) : 0.0f;
    }
    return;
  }
  uint32_t chosen = legal;
  if (fallback == RmFallback::kArgmax) {
    T best = -std::numeric_limits<T>::infinity();
    chosen = 0;
    for (int a = 0; a < n; ++a) {
      if (!(legal >> a & 1)) continue;
      if (adv[a] > best) {
        best = adv[a];
        chosen = 1u << a;
      } else if (adv[a] == best) {
        chosen |= 1u << a;
      }
    }
    if (chosen == 0) chosen = legal;  // all NaN: nothing to prefer
  }
  const float p = 1.0f / static_cast<float>(std::popcount(chosen));
  for (int a = 0; a < n; ++a) out[a] = (chosen >> a & 1) ? p : 0.0f;
}

}  // namespace

void RegretMatching(std::span<const float> advantages, uint32_t legal, std::span<float> out,
                    RmFallback fallback) {
  RegretMatchingImpl(advantages, legal, out, fallback);
}

void RegretMatching(std::span<const double> advantages, uint32_t legal, std::span<float> out,
                    RmFallback fallback) {
  RegretMatchingImpl(advantages, legal, out, fallback);
}

void ApplyHead(std::span<const float> outputs, uint32_t legal, Head head, std::span<float> out) {
  switch (head) {
    case Head::kRegretMatching:
      RegretMatching(outputs, legal, out, RmFallback::kArgmax);
      return;
    case Head::kRegretMatchingUniform:
      RegretMatching(outputs, legal, out, RmFallback::kUniform);
      return;
    case Head::kRaw:
      for (size_t a = 0; a < outputs.size(); ++a) out[a] = (legal >> a & 1) ? outputs[a] : 0.0f;
      return;
    case Head::kSoftmax:
      break;
  }
  const int n = static_cast<int>(outputs.size());
  float max = -std::numeric_limits<float>::infinity();
  for (int a = 0; a < n; ++a) {
    if ((legal >> a & 1) && outputs[a] > max) max = outputs[a];
  }
  double total = 0;
  for (int a = 0; a < n; ++a) {
    const float p = (legal >> a & 1) ? std::exp(outputs[a] - max) : 0.0f;
    out[a] = p;
    total += p;
  }
  const float inv = static_cast<float>(1.0 / total);
  for (int a = 0; a < n; ++a) out[a] *= inv;
}

}  // namespace lcfr::traversal
