// The sample memories of Deep CFR (Brown et al., 2019), in fixed capacity, with a retention
// policy chosen at construction:
// - kReservoir: a uniform sample of every sample ever offered (Vitter's Algorithm R),
//   deterministic given the offered order and the Rng: the advantage and strategy memories;
// - kSlidingWindow: the latest `capacity` samples ever added, the oldest replaced first: the
//   value scheme's memory, whose targets depend on the current strategies.
// Contiguous struct-of-arrays storage: a trainer gathers mini-batches with memcpy, no
// per-sample allocation. Torch-free; saved in a small binary format, written atomically.
#ifndef LCFR_TRAINING_MEMORY_H_
#define LCFR_TRAINING_MEMORY_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "engine/rng.h"
#include "traversal/samples.h"

namespace lcfr::training {

enum class Retention { kReservoir, kSlidingWindow };

class SampleMemory {
 public:
  SampleMemory(int64_t capacity, int feature_size, int num_actions, Retention retention);

  // Offers every sample of `samples`, in order, under the memory's retention policy (the
  // sliding window draws nothing from `rng`).
  void Add(const traversal::SampleBuffer& samples, engine::Rng& rng);

  Retention retention() const { return retention_; }
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
  // Replaces the contents; the file's shapes must match this memory's.
  absl::Status Load(const std::string& path);

 private:
  void Write(int64_t slot, const traversal::SampleBuffer& samples, size_t i);
  int64_t AppendSlot();  // grows the storage by one sample; returns its slot

  int64_t capacity_;
  Retention retention_;
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

#endif  // LCFR_TRAINING_MEMORY_H_
