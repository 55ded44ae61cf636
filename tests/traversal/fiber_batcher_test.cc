// The fiber scheduler and batcher: batch sizes, ordering, failures, cancellation, stacks.
#include "traversal/fiber_batcher.h"

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/rng.h"
#include "traversal/evaluators.h"

namespace lcfr::traversal {
namespace {

// Records each batch (rows, live fibers at the time) and answers output[0] = features[0] + 1.
class RecordingEvaluator : public Evaluator {
 public:
  void Evaluate(std::span<const PolicyRequest> requests) override {
    if (throw_at_batch >= 0 && static_cast<int>(batches.size()) == throw_at_batch) {
      throw std::runtime_error("evaluator failure for the test");
    }
    batches.push_back({static_cast<int>(requests.size()), batcher ? batcher->live_tasks() : -1});
    for (const PolicyRequest& r : requests) {
      r.output[0] = r.features[0] + 1.0f;
      networks.push_back(r.network);
    }
  }
  struct Batch {
    int rows;
    int live;
  };
  std::vector<Batch> batches;
  std::vector<int> networks;
  const FiberBatcher* batcher = nullptr;
  int throw_at_batch = -1;
};

// Counts live task frames, to prove that cancelled or failed fibers unwind.
struct Alive {
  static inline int count = 0;
  Alive() { ++count; }
  ~Alive() { --count; }
  Alive(const Alive&) = delete;
  Alive& operator=(const Alive&) = delete;
};

// A task of index-dependent length that checks every answer it gets.
int CallsOf(int64_t index) {
  return 1 + static_cast<int>(DeriveSeed({7, static_cast<uint64_t>(index)}) % 9);
}

void ScriptedTask(int64_t index, PolicyClient& policy) {
  Alive alive;
  for (int call = 0; call < CallsOf(index); ++call) {
    const float feature = static_cast<float>(index * 100 + call);
    float out = 0;
    policy.Evaluate(static_cast<int>(index % 3), Head::kRegretMatching, {&feature, 1}, 1u,
                    {&out, 1});
    REQUIRE(out == feature + 1.0f);
  }
}

BatcherConfig Config(int width, int flush_size = 0) {
  BatcherConfig config;
  config.width = width;
  config.flush_size = flush_size;
  config.stack_bytes = 64 * 1024;
  return config;
}

TEST_CASE("Batcher: every flush serves every live fiber (no tail)", "[batcher]") {
  for (int width : {1, 3, 16, 64}) {
    RecordingEvaluator evaluator;
    FiberBatcher batcher(Config(width), &evaluator);
    evaluator.batcher = &batcher;
    const int64_t tasks = 500;
    batcher.Run(tasks, ScriptedTask);
    int64_t calls = 0;
    for (int64_t i = 0; i < tasks; ++i) calls += CallsOf(i);
    int64_t rows = 0;
    bool tail = false;
    for (const auto& batch : evaluator.batches) {
      CHECK(batch.rows == batch.live);  // every live fiber is waiting on this batch
      if (batch.live < width) tail = true;
      if (!tail) CHECK(batch.rows == width);
      rows += batch.rows;
    }
    CHECK(rows == calls);
    CHECK(batcher.stats().policy_calls == calls);
    CHECK(batcher.stats().traversals == tasks);
    CHECK(batcher.stats().rows.rows() == calls);
    CHECK(batcher.stats().batches() == static_cast<int64_t>(evaluator.batches.size()));
    CHECK(Alive::count == 0);
  }
}

TEST_CASE("Batcher: flush_size caps the rows and per-network counts add up", "[batcher]") {
  RecordingEvaluator evaluator;
  FiberBatcher batcher(Config(32, 8), &evaluator);
  batcher.Run(200, ScriptedTask);
  for (const auto& batch : evaluator.batches) CHECK(batch.rows <= 8);
  const WorkerStats& stats = batcher.stats();
  int64_t per_network = 0;
  for (int n = 0; n < 3; ++n) {
    const auto count = std::count(evaluator.networks.begin(), evaluator.networks.end(), n);
    CHECK(stats.networks[n].policy_calls == count);
    CHECK(stats.networks[n].rows.rows() == count);
    per_network += count;
  }
  CHECK(per_network == stats.policy_calls);
  CHECK(stats.rows.Percentile(0.5) == 8);
  const std::string summary = stats.Summary();
  CHECK_THAT(summary, Catch::Contains("traversals 200"));
  CHECK_THAT(summary, Catch::Contains("policy calls " + std::to_string(stats.policy_calls)));
  CHECK_THAT(summary, Catch::Contains("p50 8"));
}

TEST_CASE("Batcher: batch composition is deterministic", "[batcher]") {
  RecordingEvaluator a, b;
  FiberBatcher first(Config(16), &a);
  FiberBatcher second(Config(16), &b);
  first.Run(300, ScriptedTask);
  second.Run(300, ScriptedTask);
  REQUIRE(a.networks.size() == b.networks.size());
  CHECK(a.networks == b.networks);
  REQUIRE(a.batches.size() == b.batches.size());
  for (size_t i = 0; i < a.batches.size(); ++i) CHECK(a.batches[i].rows == b.batches[i].rows);
}

TEST_CASE("Batcher: a task that throws fails the run without hanging, and others unwind",
          "[batcher]") {
  RecordingEvaluator evaluator;
  FiberBatcher batcher(Config(8), &evaluator);
  auto task = [](int64_t index, PolicyClient& policy) {
    Alive alive;
    ScriptedTask(index, policy);
    if (index == 37) throw std::runtime_error("bad state in the test");
    ScriptedTask(index + 1000, policy);
  };
  try {
    batcher.Run(100, task);
    FAIL("expected TaskFailure");
  } catch (const TaskFailure& failure) {
    CHECK(failure.task() == 37);
    CHECK(std::string(failure.what()) == "traversal task 37 failed: bad state in the test");
    CHECK(failure.cause() != nullptr);
  }
  CHECK(Alive::count == 0);
  CHECK(batcher.live_tasks() == 0);
  // The batcher is usable again.
  evaluator.batches.clear();
  batcher.Run(20, ScriptedTask);
  CHECK(batcher.live_tasks() == 0);
  CHECK(Alive::count == 0);
}

TEST_CASE("Batcher: an evaluator that throws cancels the fibers and rethrows", "[batcher]") {
  RecordingEvaluator evaluator;
  evaluator.throw_at_batch = 3;
  FiberBatcher batcher(Config(8), &evaluator);
  CHECK_THROWS_WITH(batcher.Run(100, ScriptedTask), "evaluator failure for the test");
  CHECK(Alive::count == 0);
  CHECK(batcher.live_tasks() == 0);
}

TEST_CASE("Batcher: destroying it mid-run frees every fiber", "[batcher]") {
  RecordingEvaluator evaluator;
  {
    FiberBatcher batcher(Config(32), &evaluator);
    batcher.Start(1000, ScriptedTask);
    for (int i = 0; i < 3; ++i) REQUIRE(batcher.Step());
    CHECK(batcher.live_tasks() == 32);
    CHECK(Alive::count == 32);
  }
  CHECK(Alive::count == 0);
}

// Recursion of `depth` levels with a policy call at each, like a traversal.
int Deep(int depth, PolicyClient& policy) {
  std::array<float, 32> sigma{};
  const float feature = static_cast<float>(depth);
  policy.Evaluate(0, Head::kRegretMatching, {&feature, 1}, 1u, {sigma.data(), 1});
  if (depth == 0) return 0;
  return Deep(depth - 1, policy) + static_cast<int>(sigma[0]) % 2;
}

TEST_CASE("Batcher: guarded, painted stacks measure deep recursion", "[batcher]") {
  UniformEvaluator evaluator;
  BatcherConfig config = Config(4);
  config.stack_bytes = StackBytesForDepth(300);
  config.guard_stacks = true;
  config.paint_stacks = true;
  FiberBatcher batcher(config, &evaluator);
  batcher.Run(8, [](int64_t, PolicyClient& policy) { Deep(300, policy); });
  const size_t peak = batcher.PeakStackBytes();
  INFO("peak stack " << peak << " of " << config.stack_bytes);
  CHECK(peak > 300 * 32);
  CHECK(peak < config.stack_bytes);
}

}  // namespace
}  // namespace lcfr::traversal
