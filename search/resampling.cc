#include "search/resampling.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/rng.h"

namespace lcfr::search {

std::vector<int> SystematicPicks(const std::vector<double>& cumulative, double total, int rounds,
                                 double offset) {
  std::vector<int> picks(rounds);
  const ptrdiff_t last = static_cast<ptrdiff_t>(cumulative.size()) - 1;
  for (int r = 0; r < rounds; ++r) {
    const double u = (r + offset) / rounds * total;
    const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u);
    picks[r] = static_cast<int>(std::min<ptrdiff_t>(it - cumulative.begin(), last));
  }
  return picks;
}

double LikelihoodWeights(const std::vector<double>& log_likelihood, double power,
                         std::vector<double>& cumulative) {
  double top = -std::numeric_limits<double>::infinity();
  for (const double l : log_likelihood) top = std::max(top, l);
  cumulative.assign(log_likelihood.size(), 0.0);
  double total = 0, squares = 0;
  for (size_t i = 0; i < log_likelihood.size(); ++i) {
    const double w = std::exp(power * (log_likelihood[i] - top));
    total += w;
    squares += w * w;
    cumulative[i] = total;
  }
  return total * total / squares;
}

double StandardError(double sum, double sum2, int m) {
  if (m < 2) return std::numeric_limits<double>::infinity();
  const double var = std::max(0.0, (sum2 - sum * sum / m) / (m - 1));
  return std::sqrt(var / m);
}

BlockPicks::BlockPicks(std::vector<double> cumulative, double total, int planned, uint64_t stream,
                       Order order, uint64_t shuffle_stream)
    : cumulative_(std::move(cumulative)),
      total_(total),
      planned_(planned),
      stream_(stream),
      order_(order),
      shuffle_stream_(shuffle_stream) {}

void BlockPicks::Extend(int rounds) {
  while (static_cast<int>(picks_.size()) < rounds) {
    const int begin = static_cast<int>(picks_.size());
    const uint64_t block = static_cast<uint64_t>(begin / kBlock);
    const int n = std::min(kBlock, std::max(planned_, rounds) - begin);
    auto of_block = [block](uint64_t stream) {
      return block == 0 ? stream : DeriveSeed({stream, block});
    };
    Rng rng(of_block(stream_));
    std::vector<int> drawn = SystematicPicks(cumulative_, total_, n, rng.UniformDouble());
    if (order_ == Order::kShuffled) {
      Shuffle(drawn, rng);
    } else if (order_ == Order::kShuffledApart) {
      Rng apart(of_block(shuffle_stream_));
      Shuffle(drawn, apart);
    }
    picks_.insert(picks_.end(), drawn.begin(), drawn.end());
  }
}

}  // namespace lcfr::search
