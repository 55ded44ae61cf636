// Training samples produced by the CFR traversals, and the sink through which the trainer
// receives them.
//
// A sample is (infoset features, the mover's view they encode (engine/game.h), legal mask,
// target per action, weight, iteration, player, traversal index). A memory keeps the view and
// encodes the features again when it draws a mini-batch (training/memory.h). Three kinds:
// - advantage samples, recorded at the traverser's decisions: the target is the sampled
//   counterfactual regret of every legal action (0 at illegal actions), in payoff units divided
//   by the payoff scale (traversal/cfr.h);
// - strategy samples, recorded at the other player's decisions: the target is that player's
//   current strategy (probabilities);
// - value samples (the value scheme only), recorded at the traverser's decisions: the sampled
//   payoff of the actions in the mask (every expanded action, or the one action taken), an
//   estimate of their action values Q(I, a); the mask holds those actions, not every legal one.
// `weight` is the importance weight 1 / q, where q is the probability that the traversal's own
// sampling of traverser actions reached the node (1 under external sampling). Summed over
// samples and divided by the number of traversals, weight * target is an unbiased estimate of
// the counterfactual regret (advantage samples) or of the reach-weighted strategy (strategy
// samples); a trainer minimises the weight-weighted squared error (and may multiply in a
// linear-CFR iteration weight).
//
// Storage is struct-of-arrays and contiguous, so a trainer can copy mini-batches without
// per-sample allocation.
#ifndef LCFR_TRAVERSAL_SAMPLES_H_
#define LCFR_TRAVERSAL_SAMPLES_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "base/fields.h"
#include "engine/game.h"

namespace lcfr::traversal {

// The sizes of one game's samples.
struct SampleShape {
  int feature_size = 0;  // floats of the encoding
  int num_actions = 0;
  int view_size = 0;  // bytes of the mover's view
  bool operator==(const SampleShape&) const = default;
  // The same samples without their features (what a memory keeps; see SampleBuffer::Append).
  SampleShape WithoutFeatures() const { return {0, num_actions, view_size}; }
};

template <engine::Game G>
SampleShape ShapeOf(const G& game) {
  return {game.EncodingSize(), game.num_actions(), static_cast<int>(sizeof(typename G::View))};
}

// A view's bytes, as samples store it.
template <typename View>
std::span<const std::byte> ViewBytes(const View& view) {
  return std::as_bytes(std::span<const View, 1>(&view, 1));
}

class SampleBuffer {
 public:
  SampleBuffer() = default;
  explicit SampleBuffer(const SampleShape& shape) : shape_(shape) {}

  const SampleShape& shape() const { return shape_; }
  int feature_size() const { return shape_.feature_size; }
  int num_actions() const { return shape_.num_actions; }
  int view_size() const { return shape_.view_size; }
  size_t size() const { return legal_masks_.size(); }
  bool empty() const { return legal_masks_.empty(); }

  // Appends a sample with the given features (the encoding of `view`) and a zero target;
  // returns its index. The target is then written through target(index). References into the
  // buffer are invalidated.
  size_t Add(std::span<const float> features, std::span<const std::byte> view, uint32_t legal_mask,
             float weight, int32_t iteration, int player, int64_t traversal);

  std::span<const float> features(size_t i) const {
    return {features_.data() + i * shape_.feature_size, static_cast<size_t>(shape_.feature_size)};
  }
  std::span<const std::byte> view(size_t i) const {
    return {views_.data() + i * shape_.view_size, static_cast<size_t>(shape_.view_size)};
  }
  std::span<float> target(size_t i) {
    return {targets_.data() + i * shape_.num_actions, static_cast<size_t>(shape_.num_actions)};
  }
  std::span<const float> target(size_t i) const {
    return {targets_.data() + i * shape_.num_actions, static_cast<size_t>(shape_.num_actions)};
  }
  uint32_t legal_mask(size_t i) const { return legal_masks_[i]; }
  float weight(size_t i) const { return weights_[i]; }
  int32_t iteration(size_t i) const { return iterations_[i]; }
  int player(size_t i) const { return players_[i]; }
  int64_t traversal(size_t i) const { return traversals_[i]; }

  // Whole columns, for bulk copies.
  std::span<const float> all_features() const { return features_; }
  std::span<const float> all_targets() const { return targets_; }
  std::span<const uint32_t> all_legal_masks() const { return legal_masks_; }
  std::span<const float> all_weights() const { return weights_; }
  std::span<const int32_t> all_iterations() const { return iterations_; }

  // Appends samples [begin, begin + count) of `other`: of the same shape, or, into a buffer
  // without features (shape().WithoutFeatures()), of the shape with them (the features are
  // dropped, every other field copied).
  void Append(const SampleBuffer& other, size_t begin, size_t count);
  void Append(const SampleBuffer& other) { Append(other, 0, other.size()); }
  void Clear();
  void Reserve(size_t samples);

  // Exact equality of every field (bit-identical floats), for determinism tests.
  bool operator==(const SampleBuffer& other) const;

 private:
  SampleShape shape_;
  std::vector<float> features_;
  std::vector<std::byte> views_;
  std::vector<float> targets_;
  std::vector<uint32_t> legal_masks_;
  std::vector<float> weights_;
  std::vector<int32_t> iterations_;
  std::vector<uint8_t> players_;
  std::vector<int64_t> traversals_;
};

// The kinds of samples (see the top of this file). Indexes PerKind; the order is the digest's
// and the checkpoint shards' (SampleKindName).
enum class SampleKind { kAdvantage = 0, kStrategy = 1, kValue = 2 };
inline constexpr int kNumSampleKinds = 3;
inline constexpr std::array<SampleKind, kNumSampleKinds> kSampleKinds = {
    SampleKind::kAdvantage, SampleKind::kStrategy, SampleKind::kValue};
inline constexpr EnumName kSampleKindNames[] = {{"advantage", 0}, {"strategy", 1}, {"value", 2}};
std::string_view SampleKindName(SampleKind kind);  // "advantage", "strategy", "value"

// One T per sample kind, indexed by SampleKind.
template <typename T>
struct PerKind {
  std::array<T, kNumSampleKinds> items{};

  T& operator[](SampleKind kind) { return items[static_cast<size_t>(kind)]; }
  const T& operator[](SampleKind kind) const { return items[static_cast<size_t>(kind)]; }
  auto begin() { return items.begin(); }
  auto end() { return items.end(); }
  auto begin() const { return items.begin(); }
  auto end() const { return items.end(); }
};

// One buffer per kind, all of one shape.
struct SampleSet : PerKind<SampleBuffer> {
  SampleSet() = default;
  explicit SampleSet(const SampleShape& shape) {
    for (SampleBuffer& b : items) b = SampleBuffer(shape);
  }
  void Clear() {
    for (SampleBuffer& b : items) b.Clear();
  }
};

// A consecutive range of one buffer's samples: those of one traversal.
struct SampleRange {
  const SampleBuffer* buffer = nullptr;
  size_t begin = 0;
  size_t count = 0;
};

// One traversal's samples, by kind.
using TraversalSamples = PerKind<SampleRange>;

// The whole of each buffer of `set`, as a traversal's samples.
TraversalSamples WholeSet(const SampleSet& set);

// Receives the samples of an iteration's traversals as they complete (streaming: a worker keeps
// only the traversals that finished ahead of an earlier one still in flight).
//
// Contract, per TraversalRunner::Run: BeginRun(num_workers) on the calling thread; then, on the
// worker threads, Consume once per traversal: for each worker in increasing traversal index,
// one call at a time, with worker w covering the index range [first + count * w / W, first +
// count * (w + 1) / W) of the run's [first, first + count); calls from different workers may run
// concurrently; then EndRun() on the calling thread after every worker stopped. So every sample
// reaches the sink exactly once, and concatenating the workers' streams in worker order gives the
// samples in traversal order, whatever the worker count and interleave width. The ranges are valid
// during the call only. Consume may throw; the traversal then fails like any other (TaskFailure).
// If Run throws, the sink may have received part of the iteration and EndRun is not called.
class SampleSink {
 public:
  virtual ~SampleSink() = default;
  virtual void BeginRun(int num_workers) { (void)num_workers; }
  virtual void Consume(int worker, int64_t traversal, const TraversalSamples& samples) = 0;
  virtual void EndRun() {}
};

// A sink that keeps everything: per worker while the run lasts, then in traversal order in
// `samples` (appended to what it held). sink[kind] is samples[kind].
class CollectingSink : public SampleSink {
 public:
  explicit CollectingSink(const SampleShape& shape) : samples(shape) {}
  void BeginRun(int num_workers) override;
  void Consume(int worker, int64_t traversal, const TraversalSamples& samples) override;
  void EndRun() override;

  SampleBuffer& operator[](SampleKind kind) { return samples[kind]; }
  const SampleBuffer& operator[](SampleKind kind) const { return samples[kind]; }

  SampleSet samples;

 private:
  std::vector<SampleSet> per_worker_;
};

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_SAMPLES_H_
