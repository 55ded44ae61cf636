// Drawing per-round choices from weights, for the search's rounds: systematic resampling, the
// weights of log-likelihoods, a paired standard error, and BlockPicks, which draws a decision's
// rounds block by block as they are about to run. Torch-free.
#ifndef LCFR_SEARCH_RESAMPLING_H_
#define LCFR_SEARCH_RESAMPLING_H_

#include <cstdint>
#include <vector>

namespace lcfr::search {

// Systematic resampling: for each of `rounds` rounds, the index whose weight holds the point
// (r + offset) / rounds x total of the weights' running sums `cumulative` (total: their last).
std::vector<int> SystematicPicks(const std::vector<double>& cumulative, double total, int rounds,
                                 double offset);

// The weights exp(power x (log_likelihood[i] - their top)) of the n = log_likelihood.size()
// items, as running sums into `cumulative` (summed in index order); returns their effective
// number, (sum w)^2 / sum w^2. An item at -infinity weighs 0.
double LikelihoodWeights(const std::vector<double>& log_likelihood, double power,
                         std::vector<double>& cumulative);

// The standard error of the mean of m samples given their sum and sum of squares; infinite below
// two samples (unknown).
double StandardError(double sum, double sum2, int m);

// A decision's per-round picks from fixed weights, drawn in blocks of kBlock rounds as the rounds
// are about to run (Extend), so that a decision draws only what it plays however large its
// budget. Block b is a systematic resampling of its rounds from an offset drawn from its stream,
// then, by `order`, left in index order, shuffled by the same stream, or shuffled by a stream of
// its own, so that any prefix of the rounds follows the weights. Block 0 takes the streams as
// given; block b > 0 DeriveSeed({stream, b}). A plan of one block is what a single draw over all
// the rounds gives.
class BlockPicks {
 public:
  static constexpr int kBlock = 4096;  // more than any measured budget plays (400 rounds)
  enum class Order { kIndex, kShuffled, kShuffledApart };
  // Weights as running sums (`cumulative`) out of `total`; `planned`: the rounds the decision
  // may play (the blocks' sizes; Extend may go past it). `shuffle_stream`: kShuffledApart's.
  BlockPicks(std::vector<double> cumulative, double total, int planned, uint64_t stream,
             Order order, uint64_t shuffle_stream = 0);
  // Draws blocks until rounds [0, rounds) have their picks.
  void Extend(int rounds);
  int operator[](int round) const { return picks_[round]; }
  const std::vector<int>& picks() const { return picks_; }

 private:
  std::vector<double> cumulative_;
  double total_;
  int planned_;
  uint64_t stream_;
  Order order_;
  uint64_t shuffle_stream_;
  std::vector<int> picks_;
};

}  // namespace lcfr::search

#endif  // LCFR_SEARCH_RESAMPLING_H_
