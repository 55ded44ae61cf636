// A FeatureEncoder for tests with hand-made features: the view of a sample is its features'
// bytes, and encoding copies them back. RawSamples builds buffers of that shape.
#ifndef LCFR_TESTS_TRAINING_RAW_FEATURES_H_
#define LCFR_TESTS_TRAINING_RAW_FEATURES_H_

#include <cstring>
#include <span>

#include "training/memory.h"
#include "traversal/samples.h"

namespace lcfr::training::testing {

class RawFeatures final : public FeatureEncoder {
 public:
  RawFeatures(int features, int actions)
      : shape_{features, actions, static_cast<int>(sizeof(float)) * features} {}
  const traversal::SampleShape& shape() const override { return shape_; }
  int encoding_version() const override { return 1; }
  void Encode(std::span<const std::byte> view, std::span<float> features) const override {
    std::memcpy(features.data(), view.data(), view.size());
  }

  // Appends a sample with these features to `buffer` (of this shape); returns its index.
  size_t Add(traversal::SampleBuffer& buffer, std::span<const float> features, uint32_t mask,
             float weight, int32_t iteration, int player, int64_t traversal) const {
    return buffer.Add(features, std::as_bytes(features), mask, weight, iteration, player,
                      traversal);
  }

 private:
  traversal::SampleShape shape_;
};

}  // namespace lcfr::training::testing

#endif  // LCFR_TESTS_TRAINING_RAW_FEATURES_H_
