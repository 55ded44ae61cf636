#include "traversal/sample_digest.h"

#include <cstdio>
#include <cstring>
#include <span>

namespace lcfr::traversal {

void SampleDigest::Add(const SampleBuffer& samples, size_t begin, size_t count, SampleKind kind) {
  // 1, 2, 3: the numbers the digests in metrics.jsonl have always been made with.
  const uint64_t kind_id = static_cast<uint64_t>(kind) + 1;
  for (size_t i = begin; i < begin + count; ++i) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ kind_id;
    auto mix = [&h](uint64_t v) {
      h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdULL;
    };
    auto mix_floats = [&mix](std::span<const float> values) {
      for (float f : values) {
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof(bits));
        mix(bits);
      }
    };
    mix(static_cast<uint64_t>(samples.traversal(i)));
    mix(static_cast<uint64_t>(samples.iteration(i)));
    mix(static_cast<uint64_t>(samples.player(i)));
    mix(samples.legal_mask(i));
    mix_floats(std::span<const float>(&samples.all_weights()[i], 1));
    mix_floats(samples.target(i));
    mix_floats(samples.features(i));
    low += static_cast<int64_t>(h & 0xffffffffULL);
    high += static_cast<int64_t>(h >> 32);
  }
}

std::string SampleDigest::Hex() const {
  const uint64_t sum = static_cast<uint64_t>(low) + (static_cast<uint64_t>(high) << 32);
  char text[24];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(sum));
  return text;
}

}  // namespace lcfr::traversal
