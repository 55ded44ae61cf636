#include "traversal/compacting_sink.h"

namespace lcfr::traversal {

void CompactingSink::BeginRun(int num_workers) {
  per_worker_.assign(num_workers, SampleSet(shape_.WithoutFeatures()));
  per_worker_digest_.assign(num_workers, SampleDigest{});
}

void CompactingSink::Consume(int worker, int64_t, const TraversalSamples& ranges) {
  for (SampleKind kind : kSampleKinds) {
    const SampleRange& range = ranges[kind];
    if (range.count == 0) continue;
    per_worker_digest_[worker].Add(*range.buffer, range.begin, range.count, kind);
    per_worker_[worker][kind].Append(*range.buffer, range.begin, range.count);
  }
}

void CompactingSink::EndRun() {
  for (size_t w = 0; w < per_worker_.size(); ++w) {
    for (SampleKind kind : kSampleKinds) samples[kind].Append(per_worker_[w][kind]);
    digest_.Add(per_worker_digest_[w]);
  }
  per_worker_.clear();
  per_worker_digest_.clear();
}

}  // namespace lcfr::traversal
