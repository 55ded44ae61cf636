// Golden sample digests: fixed traversal batches (game, scheme, seed, iteration, the
// deterministic pseudo-network evaluator) must produce exactly the samples they produced when
// tests/golden/sample_digests.txt was written. Any change to the game, its encoding, the
// traversals, the RNG streams or the sample layout shows up here as a diff. After an intended
// change, refresh the file with LCFR_UPDATE_GOLDEN=1 build/tests/traversal/traversal_tests
// "[golden]" and say in the commit why the samples changed.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/kuhn.h"
#include "engine/leduc.h"
#include "engine/lost_cities.h"
#include "tests/golden_file.h"
#include "traversal/cfr.h"
#include "traversal/evaluators.h"
#include "traversal/runner.h"
#include "traversal/sample_digest.h"

namespace lcfr::traversal {
namespace {

const std::string kGoldenFile = std::string(LCFR_SOURCE_DIR) + "/tests/golden/sample_digests.txt";

// "name kind count digest" per sample kind, for both traversers of one batch.
template <typename G>
std::string DigestLines(const std::string& name, const G& game, const RunnerConfig& config,
                        int iteration, int64_t traversals) {
  TraversalRunner<G> runner(game, config, [&game](int) {
    return std::make_unique<PseudoNetworkEvaluator>(game.EncodingSize(), game.num_actions(), 5);
  });
  CollectingSink sink(game.EncodingSize(), game.num_actions());
  for (int p = 0; p < 2; ++p) runner.Run(iteration, p, traversals, sink);
  std::string out;
  for (SampleKind kind : kSampleKinds) {
    SampleDigest digest;
    digest.Add(sink[kind], kind);
    std::ostringstream line;
    line << name << " " << SampleKindName(kind) << " " << sink[kind].size() << " " << digest.Hex()
         << "\n";
    out += line.str();
  }
  return out;
}

std::string AllDigests() {
  std::string out;
  RunnerConfig config;  // every field that matters set here, not left to the defaults
  config.seed = 20261201;
  config.workers = 2;
  config.worker_chunk_size = 8;
  // The toy games under every scheme.
  const engine::KuhnPoker kuhn;
  const engine::LeducPoker leduc;
  for (Scheme scheme : {Scheme::kExternal, Scheme::kOutcome, Scheme::kHybrid, Scheme::kValue}) {
    RunnerConfig c = config;
    c.cfr.scheme = scheme;
    c.cfr.hybrid_depth = 1;
    c.cfr.hybrid_epsilon = 0.1;
    c.cfr.epsilon = 0.6;
    c.cfr.strategy_sample_rate = 0.5;
    c.cfr.value_sample_rate = 0.5;
    c.cfr.value_from_iteration = 2;
    c.cfr.start_depth_max = 0;
    const std::string scheme_name(SchemeName(scheme));
    out += DigestLines("kuhn/" + scheme_name, kuhn, c, 3, 64);
    out += DigestLines("leduc/" + scheme_name, leduc, c, 3, 64);
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
  out += DigestLines("lost-cities/value", lost_cities, c, 2, 12);
  c.cfr.scheme = Scheme::kHybrid;
  c.cfr.hybrid_actions = 4;
  c.cfr.hybrid_epsilon = 0.1;
  out += DigestLines("lost-cities/hybrid", lost_cities, c, 2, 12);
  return out;
}

TEST_CASE("golden: fixed traversal batches give the checked-in sample digests", "[golden]") {
  testing::CheckGoldenFile(kGoldenFile, AllDigests());
}

}  // namespace
}  // namespace lcfr::traversal
