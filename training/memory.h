// The sample memories of Deep CFR (Brown et al., 2019), in fixed capacity, with a retention
// policy chosen at construction:
// - kReservoir: a uniform sample of every sample ever offered (Vitter's Algorithm R),
//   deterministic given the offered order and the Rng: the advantage and strategy memories;
// - kSlidingWindow: the latest `capacity` samples ever added, the oldest replaced first: the
//   value scheme's memory, whose targets depend on the current strategies.
//
// Compact: a memory keeps each sample's mover's view (engine/game.h; 98 bytes for Lost Cities)
// instead of its encoded features (618 floats, 2,472 bytes), and encodes the features again
// when a mini-batch is drawn (EncodeFeatures, through the game's FeatureEncoder). Encoding is
// deterministic, so a mini-batch is bit-identical to one built from the traversal's own
// features (tests/traversal/golden_test.cc checks it against the golden sample digests). A
// Lost Cities sample costs 98 + 4 * 22 + 12 = 198 bytes instead of 2,572: 13x more samples in
// the same RAM. Contiguous struct-of-arrays storage, no per-sample allocation.
//
// Checkpoints (SegmentChain): a memory is saved as a chain of segment files, segment 0 with
// every sample and each later one with only the samples written since the segment before it,
// so a checkpoint writes what changed since the previous one and hard-links the rest. Torch-free;
// every file is written atomically.
#ifndef LCFR_TRAINING_MEMORY_H_
#define LCFR_TRAINING_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/rng.h"
#include "engine/game.h"
#include "traversal/samples.h"

namespace lcfr::training {

enum class Retention { kReservoir, kSlidingWindow };

// Encodes the views a game's samples store into its features.
class FeatureEncoder {
 public:
  virtual ~FeatureEncoder() = default;
  virtual const traversal::SampleShape& shape() const = 0;
  virtual int encoding_version() const = 0;
  // `view`: shape().view_size bytes; `features`: shape().feature_size floats, all written.
  virtual void Encode(std::span<const std::byte> view, std::span<float> features) const = 0;
};

template <engine::Game G>
class GameFeatureEncoder final : public FeatureEncoder {
 public:
  explicit GameFeatureEncoder(const G& game) : game_(game), shape_(traversal::ShapeOf(game)) {}
  const traversal::SampleShape& shape() const override { return shape_; }
  int encoding_version() const override { return game_.EncodingVersion(); }
  void Encode(std::span<const std::byte> view, std::span<float> features) const override {
    typename G::View v;
    std::memcpy(&v, view.data(), sizeof(v));
    game_.Encode(v, features);
  }

 private:
  const G& game_;
  traversal::SampleShape shape_;
};

class SampleMemory {
 public:
  // `encoder` must outlive the memory.
  SampleMemory(int64_t capacity, const FeatureEncoder& encoder, Retention retention);

  // Offers every sample of `samples` (of the encoder's shape), in order, under the memory's
  // retention policy (the sliding window draws nothing from `rng`).
  void Add(const traversal::SampleBuffer& samples, Rng& rng);

  Retention retention() const { return retention_; }
  int64_t capacity() const { return capacity_; }
  int64_t size() const { return static_cast<int64_t>(columns_.masks.size()); }
  int64_t seen() const { return seen_; }  // samples ever offered
  const traversal::SampleShape& shape() const { return shape_; }
  int feature_size() const { return shape_.feature_size; }
  int num_actions() const { return shape_.num_actions; }
  // Bytes of RAM per sample held.
  int64_t bytes_per_sample() const;

  // Writes sample i's features (feature_size() floats).
  void EncodeFeatures(int64_t i, std::span<float> out) const { encoder_.Encode(view(i), out); }
  std::span<const std::byte> view(int64_t i) const {
    return {columns_.views.data() + i * shape_.view_size, static_cast<size_t>(shape_.view_size)};
  }
  const float* target(int64_t i) const { return columns_.targets.data() + i * shape_.num_actions; }
  uint32_t mask(int64_t i) const { return columns_.masks[i]; }
  float weight(int64_t i) const { return columns_.weights[i]; }
  int32_t iteration(int64_t i) const { return columns_.iterations[i]; }

  // Samples written (added or replaced) since the last MarkSaved.
  int64_t changed() const { return changed_; }
  void MarkSaved();

  // One segment file (see SegmentChain): every sample (full) or those changed since the last
  // MarkSaved. Written to `path`.tmp and renamed; changes nothing here. Returns the bytes
  // written.
  absl::StatusOr<int64_t> WriteSegment(const std::string& path, bool full) const;
  // Replaces the contents with segment 0 then applies the later segments in order. Every file
  // must match this memory's capacity, shape and encoding version, and the chain must be
  // consistent; errors name the file and the problem, and leave the memory unchanged. After a
  // load nothing counts as changed. `later_samples`, when given, receives the number of samples
  // the segments after the first hold.
  absl::Status LoadSegments(const std::vector<std::string>& paths,
                            int64_t* later_samples = nullptr);

 private:
  // What a memory keeps per sample, column by column (also a segment's contents as read).
  struct Columns {
    std::vector<std::byte> views;
    std::vector<float> targets;
    std::vector<uint32_t> masks;
    std::vector<float> weights;
    std::vector<int32_t> iterations;

    // Resizes every column to `size` samples of `shape`.
    void Resize(size_t size, const traversal::SampleShape& shape);
    // Copies sample `from_index` of `from` into slot `to`.
    void CopySample(const Columns& from, size_t from_index, size_t to,
                    const traversal::SampleShape& shape);
  };

  void Write(int64_t slot, const traversal::SampleBuffer& samples, size_t i);
  int64_t AppendSlot();  // grows the storage by one sample; returns its slot

  int64_t capacity_;
  Retention retention_;
  const FeatureEncoder& encoder_;
  traversal::SampleShape shape_;
  int64_t seen_ = 0;
  Columns columns_;
  std::vector<uint8_t> changed_flags_;  // per slot: written since MarkSaved
  int64_t changed_ = 0;
};

// Saves one memory into successive checkpoint directories as a chain of segments. A save
// (Write) into a new directory, given the directory of the last committed save:
// - when that directory holds the chain and the changed samples plus the samples already in
//   its later segments stay below the memory's size, it hard-links the chain's segments into
//   the new directory and writes one more segment with the changed samples;
// - otherwise it writes a full segment 0 (so a chain never holds more than twice a full save,
//   and loading reads at most that).
// Write changes nothing: only Commit, once the checkpoint is published, makes it the base of
// the next save (a checkpoint that is never published leaves the chain as it was). So every
// published checkpoint directory holds a complete chain, whatever older ones retention removes.
class SegmentChain {
 public:
  // The path of segment `segment` of this memory in checkpoint directory `dir`.
  using PathFn = std::function<std::string(const std::string& dir, int segment)>;
  explicit SegmentChain(PathFn path) : path_(std::move(path)) {}

  // `previous`: the directory of the last committed save or load ("" for none).
  absl::Status Write(const SampleMemory& memory, const std::string& dir,
                     const std::string& previous);
  // The save into `dir` (the last Write) is published: it becomes the base.
  void Commit(SampleMemory& memory);
  // Loads the chain held in `dir` (segments 0, 1, ... while they exist) into `memory`.
  absl::Status Load(SampleMemory& memory, const std::string& dir);

  int segments() const { return segments_; }
  // Bytes the last Write wrote (links not counted).
  int64_t written_bytes() const { return written_bytes_; }

 private:
  PathFn path_;
  int segments_ = 0;           // in the committed chain
  int64_t later_samples_ = 0;  // samples in its segments after 0
  int pending_segments_ = 0;   // the chain of the last Write
  int64_t pending_later_ = 0;
  int64_t written_bytes_ = 0;
};

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_MEMORY_H_
