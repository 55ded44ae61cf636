// A cheap timestamp for hot-path time splits: the TSC on x86-64 (a few ns to read), steady_clock
// elsewhere. Ticks convert to seconds with a rate calibrated once per process against
// steady_clock (about 10 ms, on first use of SecondsPerTick).
#ifndef LCFR_TRAVERSAL_CYCLE_CLOCK_H_
#define LCFR_TRAVERSAL_CYCLE_CLOCK_H_

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace lcfr::traversal {

class CycleClock {
 public:
  static uint64_t Now() {
#if defined(__x86_64__)
    return __rdtsc();
#else
    return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
  }
  static double SecondsPerTick();
};

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_CYCLE_CLOCK_H_
