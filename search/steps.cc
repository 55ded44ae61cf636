#include "search/steps.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "search/resampling.h"

namespace lcfr::search {

void RoundResults::Resize(int rounds) {
  payoff_.resize(static_cast<size_t>(rounds) * count_, std::numeric_limits<double>::quiet_NaN());
  cut_.resize(payoff_.size(), 0);
}

double RoundResults::Value(int r, int k) const {
  const double v = payoff_[static_cast<size_t>(r) * count_ + k];
  if (objective_ == Objective::kScore || std::isnan(v)) return v;
  return v > 0 ? 1.0 : v == 0 ? 0.5 : 0.0;
}

double RoundResults::Mean(int k, int end) const {
  double sum = 0;
  int n = 0;
  for (int r = 0; r < end; ++r) {
    const double v = Value(r, k);
    if (!std::isnan(v)) sum += v, ++n;
  }
  return n > 0 ? sum / n : -std::numeric_limits<double>::infinity();
}

bool RoundResults::Trails(int k, int j, int end, double z) const {
  int m = 0;
  double sum = 0, sum2 = 0;
  for (int r = 0; r < end; ++r) {
    const double d = Value(r, k) - Value(r, j);
    if (!std::isnan(d)) sum += d, sum2 += d * d, ++m;
  }
  if (m < 2) return false;
  return sum / m + z * StandardError(sum, sum2, m) < 0;
}

int64_t RoundResults::played() const {
  int64_t n = 0;
  for (const double v : payoff_) n += !std::isnan(v);
  return n;
}

int64_t RoundResults::cuts() const {
  int64_t n = 0;
  for (const char c : cut_) n += c;
  return n;
}

bool UniformWorlds::Prepare(const Decision& decision, Workers&) {
  decision_ = decision;
  return true;
}

engine::State UniformWorlds::World(int, Rng& rng) const {
  return engine::SampleWorld(*decision_.game, *decision_.state, rng);
}

int UniformAllocator::PlannedRounds(int rollouts, int count) const {
  return std::max(1, rollouts / count);
}

int UniformAllocator::PhaseRounds(int phase, int, int64_t, int rollouts, int count) const {
  return phase == 0 ? PlannedRounds(rollouts, count) : 0;
}

}  // namespace lcfr::search
