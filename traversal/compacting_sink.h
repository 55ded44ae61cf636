// The trainer's sink: like CollectingSink (traversal/samples.h), it keeps an iteration's samples
// in traversal order, but it digests each sample as it arrives (SampleDigest, on the worker
// threads) and keeps it without its features: the view, targets, mask, weight and the rest,
// what a memory stores (training/memory.h). An iteration's samples then take about a
// memory's compact size (198 bytes per Lost Cities sample instead of 2,670) until they are
// offered to the memories.
#ifndef LCFR_TRAVERSAL_COMPACTING_SINK_H_
#define LCFR_TRAVERSAL_COMPACTING_SINK_H_

#include <vector>

#include "traversal/sample_digest.h"
#include "traversal/samples.h"

namespace lcfr::traversal {

class CompactingSink : public SampleSink {
 public:
  // `shape`: the traversals' samples (with features).
  explicit CompactingSink(const SampleShape& shape)
      : samples(shape.WithoutFeatures()), shape_(shape) {}
  void BeginRun(int num_workers) override;
  void Consume(int worker, int64_t traversal, const TraversalSamples& samples) override;
  void EndRun() override;

  const SampleBuffer& operator[](SampleKind kind) const { return samples[kind]; }
  // Every sample received (all kinds), with its features, as SampleDigest::Add would digest it.
  const SampleDigest& digest() const { return digest_; }

  SampleSet samples;  // without features

 private:
  SampleShape shape_;
  SampleDigest digest_;
  std::vector<SampleSet> per_worker_;
  std::vector<SampleDigest> per_worker_digest_;
};

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_COMPACTING_SINK_H_
