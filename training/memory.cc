#include "training/memory.h"

#include <cstdio>
#include <fstream>

#include "base/atomic_file.h"
#include "base/check.h"
#include "base/files.h"
#include "base/stream_cat.h"

namespace lcfr::training {
namespace {

// Segment files: the magic, then kHeaderFields int64s (below), then the columns of `count`
// samples: their slots (a later segment only), views, targets, masks, weights, iterations.
constexpr char kMagic[8] = {'L', 'C', 'F', 'R', 'M', 'E', 'M', '2'};
constexpr char kMagicFormat1[8] = {'L', 'C', 'F', 'R', 'M', 'E', 'M', '1'};
enum Header {
  kKind,  // 0: every sample (segment 0), 1: the samples changed since the segment before
  kCapacity,
  kRetention,
  kViewSize,
  kNumActions,
  kEncodingVersion,
  kSeen,  // after this segment
  kSize,  // after this segment
  kCount,
  kHeaderFields
};

template <typename T>
void WriteColumn(AtomicFileWriter& out, const T* data, size_t count) {
  out.Write(data, count * sizeof(T));
}

template <typename T>
bool ReadColumn(std::ifstream& in, std::vector<T>& v, size_t count) {
  v.resize(count);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * sizeof(T)));
  return static_cast<bool>(in);
}

// One segment as read.

}  // namespace

void SampleMemory::Columns::Resize(size_t size, const traversal::SampleShape& shape) {
  views.resize(size * shape.view_size);
  targets.resize(size * shape.num_actions);
  masks.resize(size);
  weights.resize(size);
  iterations.resize(size);
}

void SampleMemory::Columns::CopySample(const Columns& from, size_t from_index, size_t to,
                                       const traversal::SampleShape& shape) {
  const auto v = static_cast<size_t>(shape.view_size);
  const auto a = static_cast<size_t>(shape.num_actions);
  std::memcpy(views.data() + to * v, from.views.data() + from_index * v, v);
  std::memcpy(targets.data() + to * a, from.targets.data() + from_index * a, sizeof(float) * a);
  masks[to] = from.masks[from_index];
  weights[to] = from.weights[from_index];
  iterations[to] = from.iterations[from_index];
}

SampleMemory::SampleMemory(int64_t capacity, const FeatureEncoder& encoder, Retention retention)
    : capacity_(capacity), retention_(retention), encoder_(encoder), shape_(encoder.shape()) {
  LCFR_CHECK_GE(capacity, 1);
}

int64_t SampleMemory::bytes_per_sample() const {
  return shape_.view_size + static_cast<int64_t>(sizeof(float)) * shape_.num_actions +
         static_cast<int64_t>(sizeof(uint32_t) + sizeof(float) + sizeof(int32_t) + sizeof(uint8_t));
}

void SampleMemory::Write(int64_t slot, const traversal::SampleBuffer& samples, size_t i) {
  std::memcpy(columns_.views.data() + slot * shape_.view_size, samples.view(i).data(),
              static_cast<size_t>(shape_.view_size));
  std::memcpy(columns_.targets.data() + slot * shape_.num_actions, samples.target(i).data(),
              sizeof(float) * shape_.num_actions);
  columns_.masks[slot] = samples.legal_mask(i);
  columns_.weights[slot] = samples.weight(i);
  columns_.iterations[slot] = samples.iteration(i);
  if (!changed_flags_[slot]) {
    changed_flags_[slot] = 1;
    ++changed_;
  }
}

void SampleMemory::Add(const traversal::SampleBuffer& samples, Rng& rng) {
  // With or without their features: a memory keeps the views.
  LCFR_CHECK(samples.shape().WithoutFeatures() == shape_.WithoutFeatures());
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
  columns_.Resize(static_cast<size_t>(slot) + 1, shape_);
  changed_flags_.push_back(0);
  return slot;
}

void SampleMemory::MarkSaved() {
  std::fill(changed_flags_.begin(), changed_flags_.end(), uint8_t{0});
  changed_ = 0;
}

absl::StatusOr<int64_t> SampleMemory::WriteSegment(const std::string& path, bool full) const {
  std::vector<int64_t> slots;
  if (!full) {
    slots.reserve(static_cast<size_t>(changed_));
    for (int64_t i = 0; i < size(); ++i) {
      if (changed_flags_[i]) slots.push_back(i);
    }
  }
  const int64_t count = full ? size() : static_cast<int64_t>(slots.size());
  {
    AtomicFileWriter out(path);
    out.Write(kMagic, sizeof(kMagic));
    int64_t header[kHeaderFields];
    header[kKind] = full ? 0 : 1;
    header[kCapacity] = capacity_;
    header[kRetention] = static_cast<int64_t>(retention_);
    header[kViewSize] = shape_.view_size;
    header[kNumActions] = shape_.num_actions;
    header[kEncodingVersion] = encoder_.encoding_version();
    header[kSeen] = seen_;
    header[kSize] = size();
    header[kCount] = count;
    out.Write(header, sizeof(header));
    const size_t v = static_cast<size_t>(shape_.view_size);
    const size_t a = static_cast<size_t>(shape_.num_actions);
    if (full) {
      WriteColumn(out, columns_.views.data(), columns_.views.size());
      WriteColumn(out, columns_.targets.data(), columns_.targets.size());
      WriteColumn(out, columns_.masks.data(), columns_.masks.size());
      WriteColumn(out, columns_.weights.data(), columns_.weights.size());
      WriteColumn(out, columns_.iterations.data(), columns_.iterations.size());
    } else {
      WriteColumn(out, slots.data(), slots.size());
      for (int64_t i : slots) WriteColumn(out, columns_.views.data() + i * v, v);
      for (int64_t i : slots) WriteColumn(out, columns_.targets.data() + i * a, a);
      for (int64_t i : slots) WriteColumn(out, columns_.masks.data() + i, 1);
      for (int64_t i : slots) WriteColumn(out, columns_.weights.data() + i, 1);
      for (int64_t i : slots) WriteColumn(out, columns_.iterations.data() + i, 1);
    }
    if (absl::Status s = out.Commit(); !s.ok()) return s;
  }
  const int64_t per_sample = (full ? 0 : 8) + shape_.view_size + 4 * shape_.num_actions + 12;
  return static_cast<int64_t>(sizeof(kMagic) + sizeof(int64_t) * kHeaderFields) +
         count * per_sample;
}

absl::Status SampleMemory::LoadSegments(const std::vector<std::string>& paths,
                                        int64_t* later_samples) {
  if (paths.empty()) return absl::NotFoundError("no memory segment to load");
  Columns loaded;
  int64_t seen = 0;
  int64_t later = 0;
  const size_t v = static_cast<size_t>(shape_.view_size);
  const size_t a = static_cast<size_t>(shape_.num_actions);
  for (size_t k = 0; k < paths.size(); ++k) {
    const std::string& path = paths[k];
    auto invalid = [&path](auto&&... parts) {
      return absl::InvalidArgumentError(lcfr::StreamCat(path, ": ", parts...));
    };
    std::ifstream in(path, std::ios::binary);
    if (!in) return absl::NotFoundError(lcfr::StreamCat(path, ": cannot open"));
    char magic[sizeof(kMagic)];
    struct {
      int64_t header[kHeaderFields];
      std::vector<int64_t> slots;
      Columns columns;
    } s;
    in.read(magic, sizeof(magic));
    if (in && std::memcmp(magic, kMagicFormat1, sizeof(magic)) == 0) {
      return absl::FailedPreconditionError(lcfr::StreamCat(
          path,
          ": a memory of an earlier version (format 1, encoded features); this version keeps "
          "mover's views, so the run cannot resume (its networks still serve eval, play and "
          "agent)"));
    }
    in.read(reinterpret_cast<char*>(s.header), sizeof(s.header));
    if (!in || std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) {
      return invalid("not a memory segment");
    }
    const int64_t* h = s.header;
    if (h[kCapacity] != capacity_ || h[kRetention] != static_cast<int64_t>(retention_) ||
        h[kViewSize] != shape_.view_size || h[kNumActions] != shape_.num_actions ||
        h[kEncodingVersion] != encoder_.encoding_version()) {
      return invalid("holds a memory of capacity ", h[kCapacity], ", retention ", h[kRetention],
                     ", views of ", h[kViewSize], " bytes, ", h[kNumActions],
                     " actions and encoding version ", h[kEncodingVersion], "; expected ",
                     capacity_, ", ", static_cast<int>(retention_), ", ", shape_.view_size, ", ",
                     shape_.num_actions, " and ", encoder_.encoding_version());
    }
    const int64_t old_size = static_cast<int64_t>(loaded.masks.size());
    const bool full = k == 0;
    if (h[kKind] != (full ? 0 : 1)) {
      return invalid(full ? "the first segment of a chain must hold every sample"
                          : "a later segment of a chain must hold changes only");
    }
    if (h[kSize] < old_size || h[kSize] > capacity_ || h[kSeen] < h[kSize] || h[kSeen] < seen ||
        h[kCount] < 0 || h[kCount] > h[kSize] || (full && h[kCount] != h[kSize])) {
      return invalid("inconsistent counts (size ", h[kSize], ", seen ", h[kSeen], ", samples ",
                     h[kCount], " after a chain of size ", old_size, " and seen ", seen, ")");
    }
    const auto n = static_cast<size_t>(h[kCount]);
    if (!full && !ReadColumn(in, s.slots, n)) return invalid("truncated");
    Columns& read = s.columns;
    if (!ReadColumn(in, read.views, n * v) || !ReadColumn(in, read.targets, n * a) ||
        !ReadColumn(in, read.masks, n) || !ReadColumn(in, read.weights, n) ||
        !ReadColumn(in, read.iterations, n)) {
      return invalid("truncated");
    }
    if (in.peek() != std::char_traits<char>::eof()) return invalid("has trailing bytes");
    if (full) {
      loaded = std::move(read);
    } else {
      // Slots ascending and distinct, below the new size, covering every new slot.
      int64_t new_slots = 0;
      for (size_t j = 0; j < n; ++j) {
        if (s.slots[j] < 0 || s.slots[j] >= h[kSize] || (j > 0 && s.slots[j] <= s.slots[j - 1])) {
          return invalid("sample slots out of order or out of range");
        }
        new_slots += s.slots[j] >= old_size;
      }
      if (new_slots != h[kSize] - old_size) return invalid("does not fill the slots it adds");
      loaded.Resize(static_cast<size_t>(h[kSize]), shape_);
      for (size_t j = 0; j < n; ++j) {
        loaded.CopySample(read, j, static_cast<size_t>(s.slots[j]), shape_);
      }
    }
    seen = h[kSeen];
    if (!full) later += h[kCount];
  }
  if (later_samples != nullptr) *later_samples = later;
  seen_ = seen;
  columns_ = std::move(loaded);
  changed_flags_.assign(columns_.masks.size(), 0);
  changed_ = 0;
  return absl::OkStatus();
}

absl::Status SegmentChain::Write(const SampleMemory& memory, const std::string& dir,
                                 const std::string& previous) {
  written_bytes_ = 0;
  const bool extend =
      !previous.empty() && segments_ > 0 && later_samples_ + memory.changed() < memory.size();
  if (!extend) {
    pending_segments_ = 1;
    pending_later_ = 0;
  } else {
    for (int k = 0; k < segments_; ++k) {
      if (absl::Status s = LinkOrCopyFile(path_(previous, k), path_(dir, k)); !s.ok()) return s;
    }
    pending_segments_ = segments_ + 1;
    pending_later_ = later_samples_ + memory.changed();
  }
  const absl::StatusOr<int64_t> bytes =
      memory.WriteSegment(path_(dir, pending_segments_ - 1), !extend);
  if (!bytes.ok()) return bytes.status();
  written_bytes_ = *bytes;
  return absl::OkStatus();
}

void SegmentChain::Commit(SampleMemory& memory) {
  segments_ = pending_segments_;
  later_samples_ = pending_later_;
  memory.MarkSaved();
}

absl::Status SegmentChain::Load(SampleMemory& memory, const std::string& dir) {
  std::vector<std::string> paths;
  for (int k = 0; PathExists(path_(dir, k)); ++k) paths.push_back(path_(dir, k));
  if (paths.empty()) {
    // A checkpoint of an earlier version holds NAME.mem (encoded features): say so.
    const std::string first = path_(dir, 0);
    const std::string suffix = ".s0.mem";
    if (first.size() > suffix.size() && first.ends_with(suffix)) {
      const std::string legacy = first.substr(0, first.size() - suffix.size()) + ".mem";
      if (PathExists(legacy)) return memory.LoadSegments({legacy});
    }
    return absl::NotFoundError(lcfr::StreamCat(first, ": missing"));
  }
  int64_t later = 0;
  if (absl::Status s = memory.LoadSegments(paths, &later); !s.ok()) return s;
  segments_ = static_cast<int>(paths.size());
  later_samples_ = later;
  pending_segments_ = segments_;
  pending_later_ = later_samples_;
  return absl::OkStatus();
}

}  // namespace lcfr::training
