// Portable pseudo-random numbers: the same seed gives the same stream on every platform and
// compiler (no std:: distributions, whose output is implementation-defined).
//
// Rng is xoshiro256** (Blackman & Vigna, 2018) seeded through SplitMix64. Every sampling
// function in engine/ and traversal/ takes an Rng& parameter; there is no global generator.
// An Rng is a small value type: copy it to fork a stream, one per thread/fiber.
#ifndef LCFR_BASE_RNG_H_
#define LCFR_BASE_RNG_H_

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <utility>
#include <vector>

namespace lcfr {

// One step of SplitMix64: a strong 64-bit mixer, used for seeding and for deriving streams.
constexpr uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Derives an independent seed from a sequence of integers, e.g. (run seed, iteration, player,
// traversal index). Different sequences give unrelated seeds.
constexpr uint64_t DeriveSeed(std::initializer_list<uint64_t> parts) {
  uint64_t state = 0x6A09E667F3BCC908ULL;
  uint64_t out = 0;
  for (uint64_t part : parts) {
    state ^= part + 0x9E3779B97F4A7C15ULL + (state << 6) + (state >> 2);
    out = SplitMix64(state);
  }
  return out;
}

class Rng {
 public:
  explicit constexpr Rng(uint64_t seed = 0) {
    uint64_t sm = seed;
    for (auto& word : s_) word = SplitMix64(sm);
  }

  // Uniform 64-bit integer.
  constexpr uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform integer in [0, n), n >= 1, without modulo bias (Lemire, 2019).
  constexpr uint32_t Uniform(uint32_t n) {
    uint64_t m = (Next() >> 32) * n;
    auto low = static_cast<uint32_t>(m);
    if (low < n) {
      const uint32_t threshold = static_cast<uint32_t>(-n) % n;
      while (low < threshold) {
        m = (Next() >> 32) * n;
        low = static_cast<uint32_t>(m);
      }
    }
    return static_cast<uint32_t>(m >> 32);
  }

  // Uniform double in [0, 1) with 53 random bits.
  constexpr double UniformDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  bool operator==(const Rng&) const = default;

 private:
  static constexpr uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<uint64_t, 4> s_{};
};

// A Fisher-Yates shuffle of `items` from `rng`: for i from the end down to 1, swap item i - 1
// with a uniform one of the first i. Every shuffle in the project is this one, so that a seed
// gives the same order everywhere.
template <typename T>
constexpr void Shuffle(std::span<T> items, Rng& rng) {
  for (size_t i = items.size(); i > 1; --i) {
    std::swap(items[i - 1], items[rng.Uniform(static_cast<uint32_t>(i))]);
  }
}
template <typename T>
constexpr void Shuffle(std::vector<T>& items, Rng& rng) {
  Shuffle(std::span<T>(items), rng);
}

}  // namespace lcfr

#endif  // LCFR_BASE_RNG_H_
