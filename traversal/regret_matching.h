// Regret matching (Hart & Mas-Colell, 2000) over the legal actions, as used by CFR and by the
// evaluators of advantage networks (Deep CFR, Brown et al. 2019).
#ifndef LCFR_TRAVERSAL_REGRET_MATCHING_H_
#define LCFR_TRAVERSAL_REGRET_MATCHING_H_

#include <bit>
#include <cstdint>
#include <span>

#include "traversal/evaluator.h"

namespace lcfr::traversal {

// What regret matching returns when no legal action has a positive advantage.
enum class RmFallback {
  kUniform,  // uniform over the legal actions: tabular CFR's convention
  kArgmax,   // all mass on the legal action(s) with the highest advantage, ties split evenly:
             // the Deep CFR paper's convention for network advantages
};

// out[a] = max(adv[a], 0) / sum of the positive parts over legal actions, 0 at illegal actions;
// the fallback when that sum is 0. Preconditions: legal != 0; out.size() == adv.size() <= 32.
void RegretMatching(std::span<const float> advantages, uint32_t legal, std::span<float> out,
                    RmFallback fallback);
void RegretMatching(std::span<const double> advantages, uint32_t legal, std::span<float> out,
                    RmFallback fallback);

// One row of a head (traversal/evaluator.h): writes head(outputs) over the legal actions, 0 at
// illegal ones. The reference that every evaluator's rows follow.
void ApplyHead(std::span<const float> outputs, uint32_t legal, Head head, std::span<float> out);

// Draws a legal action from epsilon * uniform(legal) + (1 - epsilon) * probabilities, given a
// uniform draw u in [0, 1). Actions with zero probability are never drawn; returns -1 only when
// no legal action has positive probability.
inline int SampleAction(std::span<const float> probabilities, uint32_t legal, double epsilon,
                        double u) {
  const double uniform = epsilon / std::popcount(legal);
  double cumulative = 0;
  int last = -1;
  for (uint32_t m = legal; m; m &= m - 1) {
    const int a = std::countr_zero(m);
    const double p = uniform + (1 - epsilon) * probabilities[a];
    if (p <= 0) continue;
    last = a;
    cumulative += p;
    if (u < cumulative) return a;
  }
  return last;  // rounding: u at the accumulated total
}

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_REGRET_MATCHING_H_
