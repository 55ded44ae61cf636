// The traversal runner: worker threads that share only the sink, and the errors of threads and
// stacks that cannot be had.
#include "traversal/runner.h"

#include <array>
#include <atomic>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/exact.h"
#include "engine/kuhn.h"
#include "engine/leduc.h"
#include "engine/lost_cities.h"
#include "tests/traversal/cfr_test_util.h"
#include "traversal/evaluators.h"
#include "traversal/runner.h"

namespace lcfr::traversal {
namespace {

using engine::KuhnPoker;
using engine::LeducPoker;
using engine::LostCities;
using namespace testing;

// Small enough for the ThreadSanitizer run of scripts/test.sh: several worker threads, each
// with its own fibers and evaluator, streaming into one sink; the same samples as one worker.
TEST_CASE("Runner: worker threads share only the sink (the TSan run's case)", "[threads]") {
  const LeducPoker game;
  RunnerConfig config = PlainRunner();
  config.seed = 5;
  config.worker_chunk_size = 4;
  config.cfr.scheme = Scheme::kValue;
  config.cfr.hybrid_depth = 1;
  config.cfr.value_from_iteration = 1;
  auto factory = [&game](int) {
    return std::make_unique<PseudoNetworkEvaluator>(game.EncodingSize(), game.num_actions(), 3);
  };
  const CollectingSink one = RunOnce(game, config, 2, 0, 48, factory);
  config.workers = 3;
  const CollectingSink three = RunOnce(game, config, 2, 0, 48, factory);
  for (SampleKind kind : kSampleKinds) {
    INFO(SampleKindName(kind));
    CHECK(three[kind] == one[kind]);
  }
  CHECK(!one[SampleKind::kValue].empty());
}

TEST_CASE("Runner: a thread that cannot start and stacks that cannot be allocated are errors",
          "[threads]") {
  const KuhnPoker game;
  RunnerConfig config = PlainRunner();
  config.workers = 3;
  config.worker_chunk_size = 2;
  auto factory = [&game](int) {
    return std::make_unique<PseudoNetworkEvaluator>(game.EncodingSize(), game.num_actions(), 3);
  };
  TraversalRunner<KuhnPoker> runner(game, config, factory);
  int started = 0;
  runner.set_thread_starter([&started](std::function<void()> fn) {
    if (started == 2) {
      throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
    }
    ++started;
    return std::thread(std::move(fn));
  });
  CollectingSink sink(traversal::ShapeOf(game));
  // It used to be std::terminate: the vector of joinable threads was destroyed unjoined.
  CHECK_THROWS_WITH(runner.Run(1, 0, 12, sink),
                    Catch::Contains("cannot start traversal thread 3 of 3") &&
                        Catch::Contains("lower traversal.workers"));
  // The runner is still usable once threads can start again.
  runner.set_thread_starter([](std::function<void()> fn) { return std::thread(std::move(fn)); });
  CollectingSink again(traversal::ShapeOf(game));
  runner.Run(1, 0, 12, again);
  const CollectingSink fresh = RunOnce(game, config, 1, 0, 12, factory);
  for (SampleKind kind : kSampleKinds) CHECK(again[kind] == fresh[kind]);
  CHECK(!fresh[SampleKind::kAdvantage].empty());

  // Fiber stacks beyond the address space: an error naming the sizes and the keys to lower.
  config.stack_bytes = size_t{1} << 46;
  config.guard_stacks = true;  // mmap, which fails cleanly under every sanitizer
  CHECK_THROWS_WITH((TraversalRunner<KuhnPoker>(game, config, factory)),
                    Catch::Contains("cannot allocate 3 traversal worker(s) x 2 fibers") &&
                        Catch::Contains("lower traversal.workers or traversal.worker_chunk_size"));
}

// An exploit run's target (FixedOpponent): the other seat's decisions ask the target's networks
// with its head, never that seat's advantage network, and record no strategy samples; the
// traverser's own decisions still ask its advantage network. ESCHER (whose value traversals play
// both seats on policy) and network ids out of range are refused.
TEST_CASE("Runner: a fixed opponent plays from its own networks", "[runner]") {
  const LeducPoker game;
  RunnerConfig config = PlainRunner();
  config.cfr.scheme = Scheme::kExternal;
  config.fixed_opponent = FixedOpponent{{kStrategyNetwork, kValueNetwork}, Head::kSoftmax};
  auto factory = [&game](int) {
    return std::make_unique<PseudoNetworkEvaluator>(game.EncodingSize(), game.num_actions(), 3);
  };
  for (int traverser : {0, 1}) {
    INFO("traverser " << traverser);
    WorkerStats stats;
    const CollectingSink sink = RunOnce(game, config, 1, traverser, 40, factory, &stats);
    CHECK(sink[SampleKind::kStrategy].empty());
    CHECK(!sink[SampleKind::kAdvantage].empty());
    const int target = traverser == 0 ? kValueNetwork : kStrategyNetwork;
    CHECK(stats.networks[target].policy_calls > 0);
    CHECK(stats.networks[AdvantageNetwork(traverser)].policy_calls > 0);
    CHECK(stats.networks[AdvantageNetwork(1 - traverser)].policy_calls == 0);
    CHECK(stats.networks[traverser == 0 ? kStrategyNetwork : kValueNetwork].policy_calls == 0);
  }
  RunnerConfig value = config;
  value.cfr.scheme = Scheme::kValue;
  CHECK(value.Validate().ok());
  RunnerConfig escher = config;
  escher.cfr.scheme = Scheme::kEscher;
  CHECK(!escher.Validate().ok());
  RunnerConfig out_of_range = config;
  out_of_range.fixed_opponent->network[1] = kMaxNetworks;
  CHECK(!out_of_range.Validate().ok());
  CHECK(config.Validate().ok());
}

// A scripted target plays the fixed opponent's seat instead of its networks: no network of the
// target's is asked (nor the other seat's advantage network), its decisions call the script (from
// both worker threads), and it records no strategy samples.
TEST_CASE("Runner: a scripted opponent plays the fixed opponent's seat", "[runner]") {
  const LeducPoker game;
  class Lowest : public ScriptedOpponent<LeducPoker> {
   public:
    int Act(const LeducPoker&, const LeducPoker::View&, uint32_t legal, Rng&) const override {
      calls.fetch_add(1);
      return std::countr_zero(legal);
    }
    mutable std::atomic<int64_t> calls{0};
  } lowest;
  RunnerConfig config = PlainRunner();
  config.workers = 2;
  config.cfr.scheme = Scheme::kExternal;
  config.fixed_opponent = FixedOpponent{{kStrategyNetwork, kStrategyNetwork}, Head::kSoftmax};
  auto factory = [&game](int) {
    return std::make_unique<PseudoNetworkEvaluator>(game.EncodingSize(), game.num_actions(), 3);
  };
  for (int traverser : {0, 1}) {
    INFO("traverser " << traverser);
    TraversalRunner<LeducPoker> runner(game, config, factory);
    runner.SetScriptedOpponent(&lowest);
    CollectingSink sink(ShapeOf(game));
    lowest.calls = 0;
    runner.Run(1, traverser, 40, sink);
    const WorkerStats stats = runner.TotalStats();
    CHECK(lowest.calls > 0);
    CHECK(sink[SampleKind::kStrategy].empty());
    CHECK(!sink[SampleKind::kAdvantage].empty());
    CHECK(stats.networks[kStrategyNetwork].policy_calls == 0);
    CHECK(stats.networks[AdvantageNetwork(1 - traverser)].policy_calls == 0);
    CHECK(stats.networks[AdvantageNetwork(traverser)].policy_calls > 0);
  }
}

}  // namespace
}  // namespace lcfr::traversal
