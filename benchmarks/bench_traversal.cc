// Traversal microbenchmarks: the fiber switch, the batcher's cost per request, and Lost Cities
// CFR traversals per interleave width with a zero-cost evaluator, against the plain recursion.
//
//   build/benchmarks/bench_traversal                        everything
//   build/benchmarks/bench_traversal --benchmark_filter=Width
//
// Policy calls per second and nodes per second are rate counters (per CPU second of the
// benchmark thread); ns_per_call is wall time per policy call.
#include <benchmark/benchmark.h>

#include <atomic>
#include <boost/context/fiber.hpp>
#include <cstdint>
#include <memory>

#include "engine/lost_cities.h"
#include "traversal/evaluators.h"
#include "traversal/fiber_batcher.h"
#include "traversal/runner.h"
#include "traversal/samples.h"

namespace lcfr::traversal {
namespace {

namespace ctx = boost::context;

// One resume into a fiber plus its suspend back: the floor of a policy call's switch cost.
void BM_FiberSwitchRoundTrip(benchmark::State& state) {
  bool stop = false;
  ctx::fiber fiber([&stop](ctx::fiber&& caller) {
    while (!stop) caller = std::move(caller).resume();
    return std::move(caller);
  });
  for (auto _ : state) fiber = std::move(fiber).resume();
  stop = true;
  fiber = std::move(fiber).resume();
  state.counters["switches"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FiberSwitchRoundTrip);

// The batcher alone: W tasks that only make policy calls (one feature, uniform answers), so
// each call costs a suspend, a slot in a batch, the evaluator loop and a resume.
void BM_BatcherPerRequest(benchmark::State& state) {
  const int width = static_cast<int>(state.range(0));
  UniformEvaluator evaluator;
  BatcherConfig config;
  config.width = width;
  config.stack_bytes = 64 * 1024;
  FiberBatcher batcher(config, &evaluator);
  constexpr int kCallsPerTask = 1000;
  auto task = [](int64_t, PolicyClient& policy) {
    const float feature = 1.0f;
    float out[2];
    for (int i = 0; i < kCallsPerTask; ++i)
      policy.Evaluate(0, Head::kRegretMatching, {&feature, 1}, 3u, {out, 2});
  };
  int64_t calls = 0;
  for (auto _ : state) {
    batcher.Run(width, task);
    calls += static_cast<int64_t>(width) * kCallsPerTask;
  }
  state.counters["ns_per_call"] = benchmark::Counter(
      static_cast<double>(calls), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_BatcherPerRequest)->Arg(1)->Arg(8)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond);

class NullSink : public SampleSink {
 public:
  void Consume(int, int64_t, const TraversalSamples& s) override {
    for (const SampleRange& range : s) samples += static_cast<int64_t>(range.count);
  }
  std::atomic<int64_t> samples = 0;
};

// Lost Cities hybrid traversals (first traverser decision expanded, 1/16 of the strategy
// samples kept) with the uniform, zero-cost evaluator: what remains is game + encode + CFR
// arithmetic + sample recording + scheduling. Arg 0 = the plain
// recursion (no fibers); other args = worker_chunk_size.
void BM_LostCitiesTraversalWidth(benchmark::State& state) {
  const int width = static_cast<int>(state.range(0));
  const engine::LostCities game;
  RunnerConfig config;
  config.workers = 1;
  config.cfr = FullRecordingCfrConfig();
  config.scheduling = width == 0 ? Scheduling::kDirect : Scheduling::kFibers;
  config.worker_chunk_size = width == 0 ? 1 : width;
  config.seed = 7;
  config.cfr.scheme = Scheme::kHybrid;
  config.cfr.hybrid_depth = 1;
  config.cfr.strategy_sample_rate = 1.0 / 16;
  TraversalRunner<engine::LostCities> runner(
      game, config, [](int) { return std::make_unique<UniformEvaluator>(); });
  constexpr int64_t kTraversals = 256;
  NullSink sink;
  int iteration = 0;
  runner.Run(iteration, 0, kTraversals, sink);  // warm-up: sample buffers reach their size
  runner.ResetStats();
  for (auto _ : state) {
    ++iteration;
    runner.Run(iteration, iteration % 2, kTraversals, sink);
  }
  const WorkerStats stats = runner.TotalStats();
  state.counters["policy_calls"] =
      benchmark::Counter(static_cast<double>(stats.policy_calls), benchmark::Counter::kIsRate);
  state.counters["nodes"] =
      benchmark::Counter(static_cast<double>(stats.nodes), benchmark::Counter::kIsRate);
  state.counters["ns_per_call"] =
      benchmark::Counter(static_cast<double>(stats.policy_calls),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["rows_mean"] = stats.rows.Mean();
  state.counters["sched_share"] = stats.scheduler_seconds() / stats.total_seconds();
  benchmark::DoNotOptimize(sink.samples.load());
}
BENCHMARK(BM_LostCitiesTraversalWidth)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Arg(32)
    ->Arg(64)
    ->Arg(128)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace lcfr::traversal

BENCHMARK_MAIN();
