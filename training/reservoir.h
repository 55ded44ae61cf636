// Reservoir memories of Deep CFR (Brown et al., 2019): a uniform sample of every sample ever
// offered, kept in fixed capacity (Vitter's Algorithm R), deterministic given the offered order
// and the Rng. Contiguous struct-of-arrays storage: a trainer gathers mini-batches with memcpy,
// no per-sample allocation. Torch-free; saved in a small binary format, written atomically.
#ifndef LCFR_TRAINING_RESERVOIR_H_
#define LCFR_TRAINING_RESERVOIR_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "engine/rng.h"
#include "traversal/samples.h"

namespace lcfr::training {

class Reservoir {
 public:
  Reservoir(int64_t capacity, int feature_size, int num_actions);

  // Offers every sample of `samples`, in order.
  void Add(const traversal::SampleBuffer& samples, engine::Rng& rng);
  // The other policy, a sliding window: appends every sample, replacing the oldest once full,
  // so the memory holds the latest `capacity` samples ever added (the value scheme's memory,
  // whose targets depend on the current strategies). Do not mix with Add on one memory.
  void AddRecent(const traversal::SampleBuffer& samples);

  int64_t capacity() const { return capacity_; }
  int64_t size() const { return static_cast<int64_t>(masks_.size()); }
  int64_t seen() const { return seen_; }  // samples ever offered
  int feature_size() const { return feature_size_; }
  int num_actions() const { return num_actions_; }

  const float* features(int64_t i) const { return features_.data() + i * feature_size_; }
  const float* target(int64_t i) const { return targets_.data() + i * num_actions_; }
  uint32_t mask(int64_t i) const { return masks_[i]; }
  float weight(int64_t i) const { return weights_[i]; }
  int32_t iteration(int64_t i) const { return iterations_[i]; }

  absl::Status Save(const std::string& path) const;
  // Replaces the contents; the file's shapes must match this reservoir's.
  absl::Status Load(const std::string& path);

 private:
  void Write(int64_t slot, const traversal::SampleBuffer& samples, size_t i);
  int64_t AppendSlot();  // grows the storage by one sample; returns its slot

  int64_t capacity_;
  int feature_size_;
  int num_actions_;
  int64_t seen_ = 0;
  std::vector<float> features_;
  std::vector<float> targets_;
  std::vector<uint32_t> masks_;
  std::vector<float> weights_;
  std::vector<int32_t> iterations_;
};

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_RESERVOIR_H_
