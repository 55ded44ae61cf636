// Regret matching (Hart & Mas-Colell, 2000) over the legal actions, as used by CFR and by the
// evaluators of advantage networks (Deep CFR, Brown et al. 2019).
#ifndef LCFR_TRAVERSAL_REGRET_MATCHING_H_
#define LCFR_TRAVERSAL_REGRET_MATCHING_H_

#include <cstdint>
#include <span>

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

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_REGRET_MATCHING_H_
