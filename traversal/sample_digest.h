// An order-independent digest of training samples: the sum mod 2^64 of one 64-bit hash per
// sample (traversal index, iteration, player, mask, weight, target and feature bits, and the
// sample kind), so equal multisets of samples give equal digests whichever worker or process
// produced which sample. Kept as two sums of 32-bit halves, which all-reduce without overflow
// (training/distributed.h). The trainer writes it to metrics.jsonl (samples.digest); the golden
// test (tests/traversal/golden_test.cc) pins the samples of fixed traversal batches with it.
#ifndef LCFR_TRAVERSAL_SAMPLE_DIGEST_H_
#define LCFR_TRAVERSAL_SAMPLE_DIGEST_H_

#include <cstdint>
#include <string>

#include "traversal/samples.h"

namespace lcfr::traversal {

struct SampleDigest {
  int64_t low = 0;   // sum of the hashes' low 32-bit halves
  int64_t high = 0;  // sum of their high halves

  // Adds every sample of `samples`, of kind `kind` (hashed in, so kinds are told apart).
  void Add(const SampleBuffer& samples, SampleKind kind) { Add(samples, 0, samples.size(), kind); }
  // Adds samples [begin, begin + count) of `samples`.
  void Add(const SampleBuffer& samples, size_t begin, size_t count, SampleKind kind);
  // Adds the samples another digest holds (digests of disjoint sets sum to the union's).
  void Add(const SampleDigest& other) {
    low += other.low;
    high += other.high;
  }
  // The 64-bit sum as 16 hex digits.
  std::string Hex() const;
};

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_SAMPLE_DIGEST_H_
