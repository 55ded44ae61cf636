#include "training/memory.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <vector>

namespace lcfr::training {
namespace {

traversal::SampleBuffer Samples(int count, int first) {
  traversal::SampleBuffer buffer(2, 3);
  for (int i = 0; i < count; ++i) {
    const float f[2] = {static_cast<float>(first + i), 0.5f};
    const size_t k = buffer.Add(f, 0b101, 1.0f, first + i, 0, i);
    buffer.target(k)[0] = static_cast<float>(first + i);
  }
  return buffer;
}

TEST_CASE("SampleMemory: reservoir keeps everything until full, then a uniform sample",
          "[memory]") {
  SampleMemory small(10, 2, 3, Retention::kReservoir);
  engine::Rng rng(1);
  small.Add(Samples(7, 0), rng);
  CHECK(small.size() == 7);
  CHECK(small.seen() == 7);
  CHECK(small.features(6)[0] == 6.0f);
  // Uniformity: over many reservoirs, each of 100 offered samples is kept ~10% of the time.
  std::vector<int> kept(100, 0);
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    SampleMemory r(10, 2, 3, Retention::kReservoir);
    engine::Rng rr(seed);
    r.Add(Samples(100, 0), rr);
    REQUIRE(r.size() == 10);
    for (int64_t i = 0; i < r.size(); ++i) ++kept[static_cast<int>(r.features(i)[0])];
  }
  for (int count : kept) CHECK(std::abs(count - 200) < 75);  // ~5.3 sigma
}

TEST_CASE("SampleMemory: the sliding window keeps the latest samples", "[memory]") {
  SampleMemory window(10, 2, 3, Retention::kSlidingWindow);
  engine::Rng unused(1);  // the sliding window draws nothing
  window.Add(Samples(7, 0), unused);
  CHECK(window.size() == 7);
  window.Add(Samples(8, 7), unused);  // samples 0..14 offered; 5..14 remain
  CHECK(window.size() == 10);
  CHECK(window.seen() == 15);
  std::vector<int> held;
  for (int64_t i = 0; i < window.size(); ++i)
    held.push_back(static_cast<int>(window.features(i)[0]));
  std::sort(held.begin(), held.end());
  CHECK(held == std::vector<int>{5, 6, 7, 8, 9, 10, 11, 12, 13, 14});
  window.Add(Samples(25, 100), unused);
  held.clear();
  for (int64_t i = 0; i < window.size(); ++i)
    held.push_back(static_cast<int>(window.features(i)[0]));
  std::sort(held.begin(), held.end());
  CHECK(held == std::vector<int>{115, 116, 117, 118, 119, 120, 121, 122, 123, 124});
}

TEST_CASE("SampleMemory: reservoir deterministic, and saved/loaded exactly", "[memory]") {
  SampleMemory a(50, 2, 3, Retention::kReservoir), b(50, 2, 3, Retention::kReservoir);
  engine::Rng ra(9), rb(9);
  for (int k = 0; k < 5; ++k) {
    a.Add(Samples(40, 40 * k), ra);
    b.Add(Samples(40, 40 * k), rb);
  }
  for (int64_t i = 0; i < a.size(); ++i) REQUIRE(a.features(i)[0] == b.features(i)[0]);
  const std::string path = "/tmp/lcfr_reservoir_test.mem";
  REQUIRE(a.Save(path).ok());
  SampleMemory c(50, 2, 3, Retention::kReservoir);
  REQUIRE(c.Load(path).ok());
  CHECK(c.size() == a.size());
  CHECK(c.seen() == 200);
  for (int64_t i = 0; i < a.size(); ++i) {
    CHECK(c.features(i)[0] == a.features(i)[0]);
    CHECK(c.target(i)[0] == a.target(i)[0]);
    CHECK(c.mask(i) == a.mask(i));
    CHECK(c.iteration(i) == a.iteration(i));
  }
  SampleMemory wrong(60, 2, 3, Retention::kReservoir);
  CHECK_THAT(std::string(wrong.Load(path).message()), Catch::Contains("expected 60"));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace lcfr::training
