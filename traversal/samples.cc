#include "traversal/samples.h"

#include <algorithm>
#include <cstring>

#include "base/check.h"

namespace lcfr::traversal {

size_t SampleBuffer::Add(std::span<const float> features, std::span<const std::byte> view,
                         uint32_t legal_mask, float weight, int32_t iteration, int player,
                         int64_t traversal) {
  LCFR_DCHECK_EQ(features.size(), static_cast<size_t>(shape_.feature_size));
  LCFR_DCHECK_EQ(view.size(), static_cast<size_t>(shape_.view_size));
  const size_t index = size();
  features_.insert(features_.end(), features.begin(), features.end());
  views_.insert(views_.end(), view.begin(), view.end());
  targets_.resize(targets_.size() + shape_.num_actions, 0.0f);
  legal_masks_.push_back(legal_mask);
  weights_.push_back(weight);
  iterations_.push_back(iteration);
  players_.push_back(static_cast<uint8_t>(player));
  traversals_.push_back(traversal);
  return index;
}

void SampleBuffer::Append(const SampleBuffer& other, size_t begin, size_t count) {
  const bool drop_features = shape_.feature_size == 0 && other.shape_.WithoutFeatures() == shape_;
  LCFR_CHECK(other.shape_ == shape_ || drop_features);
  LCFR_CHECK_LE(begin + count, other.size());
  if (count == 0) return;
  auto append = [&](auto& to, const auto& from, size_t width) {
    to.insert(to.end(), from.begin() + begin * width, from.begin() + (begin + count) * width);
  };
  if (!drop_features) append(features_, other.features_, shape_.feature_size);
  append(views_, other.views_, shape_.view_size);
  append(targets_, other.targets_, shape_.num_actions);
  append(legal_masks_, other.legal_masks_, 1);
  append(weights_, other.weights_, 1);
  append(iterations_, other.iterations_, 1);
  append(players_, other.players_, 1);
  append(traversals_, other.traversals_, 1);
}

void SampleBuffer::Clear() {
  features_.clear();
  views_.clear();
  targets_.clear();
  legal_masks_.clear();
  weights_.clear();
  iterations_.clear();
  players_.clear();
  traversals_.clear();
}

void SampleBuffer::Reserve(size_t samples) {
  features_.reserve(samples * shape_.feature_size);
  views_.reserve(samples * shape_.view_size);
  targets_.reserve(samples * shape_.num_actions);
  legal_masks_.reserve(samples);
  weights_.reserve(samples);
  iterations_.reserve(samples);
  players_.reserve(samples);
  traversals_.reserve(samples);
}

bool SampleBuffer::operator==(const SampleBuffer& other) const {
  auto same_bits = [](const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
  };
  return shape_ == other.shape_ && same_bits(features_, other.features_) &&
         views_ == other.views_ && same_bits(targets_, other.targets_) &&
         same_bits(weights_, other.weights_) && legal_masks_ == other.legal_masks_ &&
         iterations_ == other.iterations_ && players_ == other.players_ &&
         traversals_ == other.traversals_;
}

std::string_view SampleKindName(SampleKind kind) {
  return NameOf(kSampleKindNames, static_cast<int>(kind));
}

TraversalSamples WholeSet(const SampleSet& set) {
  TraversalSamples ranges;
  for (SampleKind kind : kSampleKinds) ranges[kind] = {&set[kind], 0, set[kind].size()};
  return ranges;
}

void CollectingSink::BeginRun(int num_workers) {
  per_worker_.assign(num_workers, SampleSet(samples[SampleKind::kAdvantage].shape()));
}

void CollectingSink::Consume(int worker, int64_t, const TraversalSamples& ranges) {
  for (SampleKind kind : kSampleKinds) {
    const SampleRange& range = ranges[kind];
    if (range.count > 0) per_worker_[worker][kind].Append(*range.buffer, range.begin, range.count);
  }
}

void CollectingSink::EndRun() {
  for (const SampleSet& set : per_worker_) {
    for (SampleKind kind : kSampleKinds) samples[kind].Append(set[kind]);
  }
  per_worker_.clear();
}

}  // namespace lcfr::traversal
