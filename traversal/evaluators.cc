#include "traversal/evaluators.h"

#include <bit>

#include "base/check.h"
#include "base/rng.h"
#include "engine/exact.h"

namespace lcfr::traversal {
namespace {

void FillUniform(uint32_t legal, std::span<float> out) {
  const float p = 1.0f / static_cast<float>(std::popcount(legal));
  for (size_t a = 0; a < out.size(); ++a) out[a] = (legal >> a & 1) ? p : 0.0f;
}

}  // namespace

void UniformEvaluator::Evaluate(std::span<const PolicyRequest> requests) {
  for (const PolicyRequest& r : requests) FillUniform(r.legal_mask, r.output);
}

PseudoNetworkEvaluator::PseudoNetworkEvaluator(int feature_size, int num_actions, uint64_t seed)
    : feature_size_(feature_size), num_actions_(num_actions) {
  weights_.resize(static_cast<size_t>(kMaxNetworks) * num_actions * feature_size);
  bias_.resize(static_cast<size_t>(kMaxNetworks) * num_actions);
  for (int n = 0; n < kMaxNetworks; ++n) {
    Rng rng(DeriveSeed({seed, static_cast<uint64_t>(n)}));
    const size_t w0 = static_cast<size_t>(n) * num_actions * feature_size;
    for (size_t i = 0; i < static_cast<size_t>(num_actions) * feature_size; ++i) {
      weights_[w0 + i] = static_cast<float>(2 * rng.UniformDouble() - 1);
    }
    for (int a = 0; a < num_actions; ++a) {
      bias_[n * num_actions + a] = static_cast<float>(rng.UniformDouble() - 0.5);
    }
  }
}

void PseudoNetworkEvaluator::Evaluate(std::span<const PolicyRequest> requests) {
  std::vector<float> advantages(num_actions_);
  for (const PolicyRequest& r : requests) {
    LCFR_CHECK_EQ(r.features.size(), static_cast<size_t>(feature_size_));
    LCFR_CHECK_EQ(r.output.size(), static_cast<size_t>(num_actions_));
    LCFR_CHECK(num_actions_ >= 32 || (r.legal_mask >> num_actions_) == 0)
        << "legal mask " << r.legal_mask << " names actions beyond " << num_actions_;
    const float* w =
        weights_.data() + static_cast<size_t>(r.network) * num_actions_ * feature_size_;
    for (int a = 0; a < num_actions_; ++a) {
      float sum = bias_[r.network * num_actions_ + a];
      const float* row = w + static_cast<size_t>(a) * feature_size_;
      for (int j = 0; j < feature_size_; ++j) sum += row[j] * r.features[j];
      advantages[a] = sum;
    }
    ApplyHead(std::span<const float>(advantages), r.legal_mask, r.head, r.output);
  }
}

void SplitByNetworkEvaluator::Evaluate(std::span<const PolicyRequest> requests) {
  for (int network = 0; network < kMaxNetworks; ++network) {
    group_.clear();
    for (const PolicyRequest& r : requests) {
      if (r.network == network) group_.push_back(r);
    }
    if (!group_.empty()) inner_->Evaluate(group_);
  }
}

RegretTable::Entry& RegretTable::Get(int player, std::span<const float> features) {
  Entry& entry = table_[engine::InfosetKey(player, features)];
  if (entry.regret.empty()) {
    entry.regret.assign(num_actions_, 0.0);
    entry.strategy_sum.assign(num_actions_, 0.0);
  }
  return entry;
}

const RegretTable::Entry* RegretTable::Find(int player, std::span<const float> features) const {
  const auto it = table_.find(engine::InfosetKey(player, features));
  return it == table_.end() ? nullptr : &it->second;
}

void RegretTable::CurrentStrategy(int player, std::span<const float> features, uint32_t legal,
                                  std::span<float> out) const {
  const Entry* entry = Find(player, features);
  if (entry == nullptr) return FillUniform(legal, out);
  RegretMatching(std::span<const double>(entry->regret), legal, out, RmFallback::kUniform);
}

void RegretTable::AverageStrategy(int player, std::span<const float> features, uint32_t legal,
                                  std::span<float> out) const {
  const Entry* entry = Find(player, features);
  double total = 0;
  if (entry != nullptr) {
    for (int a = 0; a < num_actions_; ++a) {
      if (legal >> a & 1) total += entry->strategy_sum[a];
    }
  }
  if (total <= 0) return FillUniform(legal, out);
  for (int a = 0; a < num_actions_; ++a) {
    out[a] = (legal >> a & 1) ? static_cast<float>(entry->strategy_sum[a] / total) : 0.0f;
  }
}

void RegretTable::Add(const SampleBuffer& samples, size_t begin, size_t count, double scale,
                      std::vector<double> Entry::*sums) {
  for (size_t i = begin; i < begin + count; ++i) {
    std::vector<double>& sum = Get(samples.player(i), samples.features(i)).*sums;
    const double w = scale * samples.weight(i);
    const auto target = samples.target(i);
    for (int a = 0; a < num_actions_; ++a) sum[a] += w * target[a];
  }
}

void RegretTable::AddRegrets(const SampleBuffer& samples, size_t begin, size_t count,
                             double scale) {
  Add(samples, begin, count, scale, &Entry::regret);
}

void RegretTable::AddStrategies(const SampleBuffer& samples, size_t begin, size_t count,
                                double scale) {
  Add(samples, begin, count, scale, &Entry::strategy_sum);
}

void TabularEvaluator::Evaluate(std::span<const PolicyRequest> requests) {
  for (const PolicyRequest& r : requests) {
    LCFR_CHECK(r.network == kAdvantageNetwork0 || r.network == kAdvantageNetwork1)
        << "TabularEvaluator serves advantage networks only, got network " << r.network;
    table_->CurrentStrategy(r.network, r.features, r.legal_mask, r.output);
  }
}

}  // namespace lcfr::traversal
