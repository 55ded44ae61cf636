#include "training/memory.h"

#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "base/files.h"
#include "tests/training/raw_features.h"
#include "tests/traversal/golden_batches.h"

namespace lcfr::training {
namespace {

const testing::RawFeatures kRaw(2, 3);

traversal::SampleBuffer Samples(int count, int first) {
  traversal::SampleBuffer buffer(kRaw.shape());
  for (int i = 0; i < count; ++i) {
    const float f[2] = {static_cast<float>(first + i), 0.5f};
    const size_t k = kRaw.Add(buffer, f, 0b101, 1.0f, first + i, 0, i);
    buffer.target(k)[0] = static_cast<float>(first + i);
  }
  return buffer;
}

// The first feature of sample i: its id in Samples().
int IdOf(const SampleMemory& memory, int64_t i) {
  float f[2];
  memory.EncodeFeatures(i, f);
  return static_cast<int>(f[0]);
}

std::string TempDir() {
  char name[] = "/tmp/lcfr_memory_test_XXXXXX";
  return ::mkdtemp(name);
}

// Every field of every sample equal, bit for bit.
void CheckSameSamples(const SampleMemory& a, const SampleMemory& b) {
  REQUIRE(a.size() == b.size());
  CHECK(a.seen() == b.seen());
  bool same = true;
  for (int64_t i = 0; i < a.size(); ++i) {
    same &= std::equal(a.view(i).begin(), a.view(i).end(), b.view(i).begin());
    same &= std::memcmp(a.target(i), b.target(i), sizeof(float) * a.num_actions()) == 0;
    same &= a.mask(i) == b.mask(i) && a.iteration(i) == b.iteration(i);
    const float wa = a.weight(i), wb = b.weight(i);
    same &= std::memcmp(&wa, &wb, sizeof(float)) == 0;
  }
  CHECK(same);
}

TEST_CASE("SampleMemory: reservoir keeps everything until full, then a uniform sample",
          "[memory]") {
  SampleMemory small(10, kRaw, Retention::kReservoir);
  Rng rng(1);
  small.Add(Samples(7, 0), rng);
  CHECK(small.size() == 7);
  CHECK(small.seen() == 7);
  CHECK(IdOf(small, 6) == 6);
  // Uniformity: over many reservoirs, each of 100 offered samples is kept ~10% of the time.
  std::vector<int> kept(100, 0);
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    SampleMemory r(10, kRaw, Retention::kReservoir);
    Rng rr(seed);
    r.Add(Samples(100, 0), rr);
    REQUIRE(r.size() == 10);
    for (int64_t i = 0; i < r.size(); ++i) ++kept[IdOf(r, i)];
  }
  for (int count : kept) CHECK(std::abs(count - 200) < 75);  // ~5.3 sigma
}

TEST_CASE("SampleMemory: the sliding window keeps the latest samples", "[memory]") {
  SampleMemory window(10, kRaw, Retention::kSlidingWindow);
  Rng unused(1);  // the sliding window draws nothing
  window.Add(Samples(7, 0), unused);
  CHECK(window.size() == 7);
  window.Add(Samples(8, 7), unused);  // samples 0..14 offered; 5..14 remain
  CHECK(window.size() == 10);
  CHECK(window.seen() == 15);
  std::vector<int> held;
  for (int64_t i = 0; i < window.size(); ++i) held.push_back(IdOf(window, i));
  std::sort(held.begin(), held.end());
  CHECK(held == std::vector<int>{5, 6, 7, 8, 9, 10, 11, 12, 13, 14});
  window.Add(Samples(25, 100), unused);
  held.clear();
  for (int64_t i = 0; i < window.size(); ++i) held.push_back(IdOf(window, i));
  std::sort(held.begin(), held.end());
  CHECK(held == std::vector<int>{115, 116, 117, 118, 119, 120, 121, 122, 123, 124});
}

TEST_CASE("SampleMemory: reservoir deterministic, counts changed samples", "[memory]") {
  SampleMemory a(50, kRaw, Retention::kReservoir), b(50, kRaw, Retention::kReservoir);
  Rng ra(9), rb(9);
  for (int k = 0; k < 5; ++k) {
    a.Add(Samples(40, 40 * k), ra);
    b.Add(Samples(40, 40 * k), rb);
  }
  CheckSameSamples(a, b);
  CHECK(a.changed() == 50);  // every slot written since construction
  a.MarkSaved();
  CHECK(a.changed() == 0);
  a.Add(Samples(40, 1000), ra);
  CHECK(a.changed() > 0);
  CHECK(a.changed() <= 40);
}

// A chain in directories dir/c1, dir/c2, ... named "m", segment k at dir/cN/m.sK.mem.
SegmentChain Chain() {
  return SegmentChain([](const std::string& dir, int segment) {
    return dir + "/m.s" + std::to_string(segment) + ".mem";
  });
}

TEST_CASE("SegmentChain: a checkpoint writes what changed and links the rest; loads are exact",
          "[memory]") {
  const std::string root = TempDir();
  SampleMemory memory(100, kRaw, Retention::kReservoir);
  SegmentChain chain = Chain();
  Rng rng(4);
  std::string previous;
  std::vector<int> segments;
  for (int c = 1; c <= 6; ++c) {
    memory.Add(Samples(c == 1 ? 100 : 15, 1000 * c), rng);
    const std::string dir = root + "/c" + std::to_string(c);
    REQUIRE(MakeDirectories(dir).ok());
    const int64_t changed = memory.changed();
    REQUIRE(chain.Write(memory, dir, previous).ok());
    // Writing changes nothing until the checkpoint is committed.
    CHECK(memory.changed() == changed);
    chain.Commit(memory);
    CHECK(memory.changed() == 0);
    previous = dir;
    segments.push_back(chain.segments());
    // The checkpoint loads back exactly, into a fresh memory.
    SampleMemory loaded(100, kRaw, Retention::kReservoir);
    SegmentChain reader = Chain();
    REQUIRE(reader.Load(loaded, dir).ok());
    CheckSameSamples(loaded, memory);
    CHECK(reader.segments() == chain.segments());
  }
  // 100 samples, then at most 15 changed per checkpoint: a delta while the chain's changes stay
  // below the size (100), a full segment 0 again after that.
  CHECK(segments.front() == 1);
  CHECK(*std::max_element(segments.begin(), segments.end()) > 2);
  // Links: the segment 0 of the last chain is the same file in every directory holding it.
  struct stat first {
  }, last{};
  REQUIRE(::stat((root + "/c2/m.s0.mem").c_str(), &first) == 0);
  REQUIRE(::stat((root + "/c3/m.s0.mem").c_str(), &last) == 0);
  CHECK(first.st_ino == last.st_ino);
  // A delta is much smaller than the full segment.
  struct stat full {
  }, delta{};
  REQUIRE(::stat((root + "/c2/m.s0.mem").c_str(), &full) == 0);
  REQUIRE(::stat((root + "/c2/m.s1.mem").c_str(), &delta) == 0);
  CHECK(delta.st_size * 3 < full.st_size);
  REQUIRE(RemoveTree(root).ok());
}

TEST_CASE(
    "SegmentChain: an uncommitted write leaves the base; removed old checkpoints do not matter",
    "[memory]") {
  const std::string root = TempDir();
  SampleMemory memory(60, kRaw, Retention::kSlidingWindow);
  SegmentChain chain = Chain();
  Rng rng(1);
  memory.Add(Samples(60, 0), rng);
  REQUIRE(MakeDirectories(root + "/c1").ok());
  REQUIRE(chain.Write(memory, root + "/c1", "").ok());
  chain.Commit(memory);
  memory.Add(Samples(5, 100), rng);
  // A write into c2 that is never published (its directory is thrown away).
  REQUIRE(MakeDirectories(root + "/c2").ok());
  REQUIRE(chain.Write(memory, root + "/c2", root + "/c1").ok());
  REQUIRE(RemoveTree(root + "/c2").ok());
  memory.Add(Samples(5, 200), rng);
  REQUIRE(MakeDirectories(root + "/c3").ok());
  REQUIRE(chain.Write(memory, root + "/c3", root + "/c1").ok());
  chain.Commit(memory);
  CHECK(chain.segments() == 2);
  // Retention removes c1's files: c3 still holds its whole chain.
  REQUIRE(RemoveTree(root + "/c1").ok());
  SampleMemory loaded(60, kRaw, Retention::kSlidingWindow);
  SegmentChain reader = Chain();
  REQUIRE(reader.Load(loaded, root + "/c3").ok());
  CheckSameSamples(loaded, memory);
  REQUIRE(RemoveTree(root).ok());
}

TEST_CASE("SampleMemory: bad segment files are refused with the file and the problem", "[memory]") {
  const std::string root = TempDir();
  SampleMemory memory(50, kRaw, Retention::kReservoir);
  Rng rng(2);
  memory.Add(Samples(30, 0), rng);
  const std::string full = root + "/full.mem";
  REQUIRE(memory.WriteSegment(full, true).ok());
  memory.Add(Samples(10, 100), rng);
  const std::string delta = root + "/delta.mem";
  REQUIRE(memory.WriteSegment(delta, false).ok());

  SampleMemory other(50, kRaw, Retention::kReservoir);
  REQUIRE(other.LoadSegments({full, delta}).ok());
  CheckSameSamples(other, memory);
  auto message = [](const absl::Status& s) { return std::string(s.message()); };
  SampleMemory wrong(60, kRaw, Retention::kReservoir);
  CHECK_THAT(message(wrong.LoadSegments({full})), Catch::Contains("expected 60"));
  SampleMemory window(50, kRaw, Retention::kSlidingWindow);
  CHECK_THAT(message(window.LoadSegments({full})), Catch::Contains("retention"));
  CHECK_THAT(message(other.LoadSegments({delta})), Catch::Contains("must hold every sample"));
  CHECK_THAT(message(other.LoadSegments({full, full})), Catch::Contains("changes only"));
  // Truncated, trailing bytes, another file, the format of earlier versions.
  std::string bytes = *ReadFileToString(delta);
  const std::string cut = root + "/cut.mem";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 3);
  CHECK_THAT(message(other.LoadSegments({full, cut})), Catch::Contains("cut.mem: truncated"));
  const std::string longer = root + "/longer.mem";
  std::ofstream(longer, std::ios::binary) << bytes << "x";
  CHECK_THAT(message(other.LoadSegments({full, longer})), Catch::Contains("trailing bytes"));
  const std::string text = root + "/text.mem";
  std::ofstream(text) << "hello, this is not a memory at all";
  CHECK_THAT(message(other.LoadSegments({text})), Catch::Contains("not a memory segment"));
  const std::string old = root + "/old.mem";
  std::ofstream(old, std::ios::binary) << "LCFRMEM1" << std::string(64, '\0');
  CHECK_THAT(message(other.LoadSegments({old})), Catch::Contains("earlier version"));
  // A failed load leaves the memory as it was.
  CheckSameSamples(other, memory);
  // A checkpoint directory of an earlier version (m.mem, no chain) is named as such.
  REQUIRE(MakeDirectories(root + "/legacy").ok());
  std::ofstream(root + "/legacy/m.mem", std::ios::binary) << "LCFRMEM1" << std::string(64, '\0');
  SegmentChain chain = Chain();
  CHECK_THAT(message(chain.Load(other, root + "/legacy")), Catch::Contains("earlier version"));
  CHECK_THAT(message(chain.Load(other, root)), Catch::Contains("m.s0.mem: missing"));
  REQUIRE(RemoveTree(root).ok());
}

TEST_CASE("SampleMemory: a Lost Cities sample takes at most an eighth of its encoded size",
          "[memory]") {
  const engine::LostCities game;
  const GameFeatureEncoder<engine::LostCities> encoder(game);
  const SampleMemory memory(10, encoder, Retention::kReservoir);
  // What a sample took when memories kept the features: 618 floats, the targets, the mask,
  // weight and iteration.
  const int64_t encoded = 4 * game.EncodingSize() + 4 * game.num_actions() + 12;
  INFO("bytes per sample " << memory.bytes_per_sample() << ", encoded " << encoded);
  CHECK(memory.bytes_per_sample() * 8 <= encoded);
}

TEST_CASE("SampleMemory: mini-batch rows from the stored views give the golden sample digests",
          "[memory][golden]") {
  // Each golden batch through a memory that keeps every sample in order (a sliding window as
  // large as the batch), then digested as a mini-batch sees it: features encoded again from the
  // views, targets, masks, weights and iterations from the memory (the player and traversal
  // index, which a mini-batch does not use, from the batch). The digests must be the golden
  // ones: what the learner trains on is bit for bit what the traversals produced.
  std::string out;
  traversal::testing::ForEachGoldenBatch([&out](const std::string& name, const auto& game,
                                                const traversal::CollectingSink& sink) {
    const GameFeatureEncoder encoder(game);
    for (traversal::SampleKind kind : traversal::kSampleKinds) {
      const traversal::SampleBuffer& samples = sink[kind];
      SampleMemory memory(std::max<int64_t>(1, static_cast<int64_t>(samples.size())), encoder,
                          Retention::kSlidingWindow);
      Rng unused(0);
      memory.Add(samples, unused);
      traversal::SampleBuffer rows(traversal::ShapeOf(game));
      std::vector<float> features(game.EncodingSize());
      for (int64_t i = 0; i < memory.size(); ++i) {
        memory.EncodeFeatures(i, features);
        const size_t k = rows.Add(features, memory.view(i), memory.mask(i), memory.weight(i),
                                  memory.iteration(i), samples.player(i), samples.traversal(i));
        std::copy(memory.target(i), memory.target(i) + game.num_actions(), rows.target(k).begin());
      }
      out += traversal::testing::DigestLine(name, kind, rows);
    }
  });
  const absl::StatusOr<std::string> golden =
      ReadFileToString(traversal::testing::kGoldenDigestFile);
  REQUIRE(golden.ok());
  CHECK(out == *golden);
}

}  // namespace
}  // namespace lcfr::training
