#include "training/memory.h"

#include <cstdio>
#include <cstring>
#include <fstream>

#include "engine/check.h"
#include "engine/stream_cat.h"

namespace lcfr::training {
namespace {

constexpr char kMagic[8] = {'L', 'C', 'F', 'R', 'M', 'E', 'M', '1'};

template <typename T>
void WriteVector(std::ofstream& out, const std::vector<T>& v) {
  out.write(reinterpret_cast<const char*>(v.data()),
            static_cast<std::streamsize>(v.size() * sizeof(T)));
}

template <typename T>
bool ReadVector(std::ifstream& in, std::vector<T>& v, size_t count) {
  v.resize(count);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * sizeof(T)));
  return static_cast<bool>(in);
}

}  // namespace

SampleMemory::SampleMemory(int64_t capacity, int feature_size, int num_actions, Retention retention)
    : capacity_(capacity),
      retention_(retention),
      feature_size_(feature_size),
      num_actions_(num_actions) {
  LCFR_CHECK_GE(capacity, 1);
}

void SampleMemory::Write(int64_t slot, const traversal::SampleBuffer& samples, size_t i) {
  std::memcpy(features_.data() + slot * feature_size_, samples.features(i).data(),
              sizeof(float) * feature_size_);
  std::memcpy(targets_.data() + slot * num_actions_, samples.target(i).data(),
              sizeof(float) * num_actions_);
  masks_[slot] = samples.legal_mask(i);
  weights_[slot] = samples.weight(i);
  iterations_[slot] = samples.iteration(i);
}

void SampleMemory::Add(const traversal::SampleBuffer& samples, engine::Rng& rng) {
  LCFR_CHECK_EQ(samples.feature_size(), feature_size_);
  LCFR_CHECK_EQ(samples.num_actions(), num_actions_);
  if (retention_ == Retention::kSlidingWindow) {
    for (size_t i = 0; i < samples.size(); ++i) {
      ++seen_;
      // Once full, the slot of the oldest sample.
      Write(size() < capacity_ ? AppendSlot() : (seen_ - 1) % capacity_, samples, i);
    }
    return;
  }
  for (size_t i = 0; i < samples.size(); ++i) {
    ++seen_;
    int64_t slot;
    if (size() < capacity_) {
      slot = AppendSlot();
    } else {
      // Algorithm R: keep the new sample with probability capacity / seen.
      slot = static_cast<int64_t>(rng.Next() % static_cast<uint64_t>(seen_));
      if (slot >= capacity_) continue;
    }
    Write(slot, samples, i);
  }
}

int64_t SampleMemory::AppendSlot() {
  const int64_t slot = size();
  features_.resize(features_.size() + feature_size_);
  targets_.resize(targets_.size() + num_actions_);
  masks_.push_back(0);
  weights_.push_back(0);
  iterations_.push_back(0);
  return slot;
}

absl::Status SampleMemory::Save(const std::string& path) const {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary);
    out.write(kMagic, sizeof(kMagic));
    const int64_t header[5] = {capacity_, feature_size_, num_actions_, seen_, size()};
    out.write(reinterpret_cast<const char*>(header), sizeof(header));
    WriteVector(out, features_);
    WriteVector(out, targets_);
    WriteVector(out, masks_);
    WriteVector(out, weights_);
    WriteVector(out, iterations_);
    out.close();
    if (!out) {
      std::remove(temporary.c_str());
      return absl::InternalError(lcfr::StreamCat("cannot write ", path));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return absl::InternalError(lcfr::StreamCat("cannot write ", path));
  }
  return absl::OkStatus();
}

absl::Status SampleMemory::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(lcfr::StreamCat(path, ": cannot open"));
  char magic[sizeof(kMagic)];
  int64_t header[5];
  in.read(magic, sizeof(magic));
  in.read(reinterpret_cast<char*>(header), sizeof(header));
  if (!in || std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) {
    return absl::InvalidArgumentError(lcfr::StreamCat(path, ": not a reservoir file"));
  }
  if (header[0] != capacity_ || header[1] != feature_size_ || header[2] != num_actions_ ||
      header[4] < 0 || header[4] > header[0] || header[3] < header[4]) {
    return absl::InvalidArgumentError(lcfr::StreamCat(
        path, ": holds a reservoir of capacity ", header[0], " for ", header[1], " features and ",
        header[2], " actions; expected ", capacity_, ", ", feature_size_, " and ", num_actions_));
  }
  const auto n = static_cast<size_t>(header[4]);
  std::vector<float> features, targets, weights;
  std::vector<uint32_t> masks;
  std::vector<int32_t> iterations;
  if (!ReadVector(in, features, n * feature_size_) || !ReadVector(in, targets, n * num_actions_) ||
      !ReadVector(in, masks, n) || !ReadVector(in, weights, n) || !ReadVector(in, iterations, n)) {
    return absl::InvalidArgumentError(lcfr::StreamCat(path, ": truncated"));
  }
  seen_ = header[3];
  features_ = std::move(features);
  targets_ = std::move(targets);
  masks_ = std::move(masks);
  weights_ = std::move(weights);
  iterations_ = std::move(iterations);
  return absl::OkStatus();
}

}  // namespace lcfr::training
