#include "traversal/compacting_sink.h"

#include <catch2/catch.hpp>
#include <cstring>

#include "engine/lost_cities.h"
#include "traversal/cfr.h"
#include "traversal/evaluators.h"
#include "traversal/runner.h"

namespace lcfr::traversal {
namespace {

template <typename Sink>
void RunInto(const engine::LostCities& game, Sink& sink) {
  RunnerConfig config;
  config.seed = 7;
  config.workers = 2;
  config.worker_chunk_size = 8;
  config.cfr.scheme = Scheme::kValue;
  config.cfr.value_from_iteration = 1;
  config.cfr.value_sample_rate = 0.2;
  TraversalRunner<engine::LostCities> runner(game, config, [&game](int) {
    return std::make_unique<PseudoNetworkEvaluator>(game.EncodingSize(), game.num_actions(), 5);
  });
  for (int p = 0; p < 2; ++p) runner.Run(2, p, 12, sink);
}

TEST_CASE("CompactingSink: the collecting sink's samples without features, and their digest",
          "[samples]") {
  const engine::LostCities game;
  CollectingSink full(ShapeOf(game));
  RunInto(game, full);
  CompactingSink compact(ShapeOf(game));
  RunInto(game, compact);
  SampleDigest digest;
  for (SampleKind kind : kSampleKinds) {
    const SampleBuffer& a = full[kind];
    const SampleBuffer& b = compact[kind];
    INFO(SampleKindName(kind));
    REQUIRE(a.size() == b.size());
    CHECK(b.feature_size() == 0);
    CHECK(b.all_features().empty());
    bool same = true;
    for (size_t i = 0; i < a.size(); ++i) {
      same &= std::memcmp(a.view(i).data(), b.view(i).data(), a.view(i).size()) == 0;
      same &=
          std::memcmp(a.target(i).data(), b.target(i).data(), sizeof(float) * a.num_actions()) == 0;
      same &= a.legal_mask(i) == b.legal_mask(i) && a.weight(i) == b.weight(i) &&
              a.iteration(i) == b.iteration(i) && a.player(i) == b.player(i) &&
              a.traversal(i) == b.traversal(i);
    }
    CHECK(same);
    digest.Add(a, kind);
  }
  CHECK(full[SampleKind::kValue].size() > 0);
  CHECK(compact.digest().Hex() == digest.Hex());
}

}  // namespace
}  // namespace lcfr::traversal
