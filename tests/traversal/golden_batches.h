// The fixed traversal batches of the golden sample digests (tests/golden/sample_digests.txt):
// game, scheme, seed, iteration and the deterministic pseudo-network evaluator. Shared by the
// traversal's golden test, which digests the samples as the traversals produced them, and the
// memory's (tests/training/memory_test.cc), which digests them as a memory gives them back to a
// mini-batch (features encoded again from the stored views).
#ifndef LCFR_TESTS_TRAVERSAL_GOLDEN_BATCHES_H_
#define LCFR_TESTS_TRAVERSAL_GOLDEN_BATCHES_H_

#include <sstream>
#include <string>

#include "engine/kuhn.h"
#include "engine/leduc.h"
#include "engine/lost_cities.h"
#include "traversal/cfr.h"
#include "traversal/evaluators.h"
#include "traversal/runner.h"
#include "traversal/sample_digest.h"

namespace lcfr::traversal::testing {

inline const std::string kGoldenDigestFile =
    std::string(LCFR_SOURCE_DIR) + "/tests/golden/sample_digests.txt";

// "name kind count digest" for one kind's samples of a batch.
inline std::string DigestLine(const std::string& name, SampleKind kind,
                              const SampleBuffer& samples) {
  SampleDigest digest;
  digest.Add(samples, kind);
  std::ostringstream line;
  line << name << " " << SampleKindName(kind) << " " << samples.size() << " " << digest.Hex()
       << "\n";
  return line.str();
}

// Runs one batch (both traversers) and hands its samples to fn(name, game, sink).
template <typename G, typename Fn>
void RunGoldenBatch(const std::string& name, const G& game, const RunnerConfig& config,
                    int iteration, int64_t traversals, Fn& fn) {
  TraversalRunner<G> runner(game, config, [&game](int) {
    return std::make_unique<PseudoNetworkEvaluator>(game.EncodingSize(), game.num_actions(), 5);
  });
  CollectingSink sink(ShapeOf(game));
  // ESCHER's value traversals first, as the trainer runs them.
  if (config.cfr.scheme == Scheme::kEscher) {
    runner.Run(iteration, kValueTraversal, traversals, sink);
  }
  for (int p = 0; p < 2; ++p) runner.Run(iteration, p, traversals, sink);
  fn(name, game, sink);
}

// Every batch of the golden file, in its order.
template <typename Fn>
void ForEachGoldenBatch(Fn&& fn) {
  RunnerConfig config;  // every field that matters set here, not left to the defaults
  config.seed = 20261201;
  config.workers = 2;
  config.worker_chunk_size = 8;
  // The toy games under every scheme.
  const engine::KuhnPoker kuhn;
  const engine::LeducPoker leduc;
  for (Scheme scheme :
       {Scheme::kExternal, Scheme::kOutcome, Scheme::kHybrid, Scheme::kValue, Scheme::kEscher}) {
    RunnerConfig c = config;
    c.cfr.scheme = scheme;
    c.cfr.hybrid_depth = 1;
    c.cfr.hybrid_epsilon = 0.1;
    c.cfr.epsilon = 0.6;
    c.cfr.strategy_sample_rate = 0.5;
    c.cfr.value_sample_rate = 0.5;
    c.cfr.value_from_iteration = 2;
    c.cfr.start_depth_max = 0;
    c.cfr.sampling_policy = SamplingPolicy::kUniform;
    c.cfr.value_epsilon = 0.1;
    const std::string scheme_name(SchemeName(scheme));
    RunGoldenBatch("kuhn/" + scheme_name, kuhn, c, 3, 64, fn);
    RunGoldenBatch("leduc/" + scheme_name, leduc, c, 3, 64, fn);
  }
  // Lost Cities with the default run's traversal settings (configs/default.yaml), at
  // iteration 2 so that the value scheme's tail advantage samples appear.
  const engine::LostCities lost_cities;
  RunnerConfig c = config;
  c.cfr.scheme = Scheme::kValue;
  c.cfr.hybrid_depth = 1;
  c.cfr.hybrid_actions = 0;
  c.cfr.hybrid_epsilon = 0.0;
  c.cfr.start_depth_max = 120;
  c.cfr.strategy_sample_rate = 0.1;
  c.cfr.value_from_iteration = 2;
  c.cfr.value_sample_rate = 0.05;
  RunGoldenBatch("lost-cities/value", lost_cities, c, 2, 12, fn);
  c.cfr.scheme = Scheme::kHybrid;
  c.cfr.hybrid_actions = 4;
  c.cfr.hybrid_epsilon = 0.1;
  RunGoldenBatch("lost-cities/hybrid", lost_cities, c, 2, 12, fn);
  c.cfr.scheme = Scheme::kEscher;
  c.cfr.sampling_policy = SamplingPolicy::kBalanced;
  c.cfr.value_epsilon = 0.01;
  c.cfr.value_sample_rate = 0.25;
  RunGoldenBatch("lost-cities/escher", lost_cities, c, 2, 12, fn);
}

}  // namespace lcfr::traversal::testing

#endif  // LCFR_TESTS_TRAVERSAL_GOLDEN_BATCHES_H_
