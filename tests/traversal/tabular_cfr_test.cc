// Tabular CFR through the traversals reaches low exploitability on Kuhn and Leduc.
#include "traversal/tabular_cfr.h"

#include <catch2/catch.hpp>

#include "engine/exact.h"
#include "engine/kuhn.h"
#include "engine/leduc.h"

namespace lcfr::traversal {
namespace {

template <typename G>
double Exploitability(const G& game, const TabularCfr<G>& cfr) {
  engine::ExactSolver<G> solver(game);
  return solver
      .Exploitability([&](const auto& s, std::span<float> out) { cfr.AveragePolicy(s, out); })
      .exploitability;
}

TEST_CASE("Tabular CFR, external sampling: Kuhn exploitability < 0.01", "[tabular]") {
  engine::KuhnPoker game;
  TabularCfrConfig config;
  config.runner.seed = 1;
  config.runner.cfr.scheme = Scheme::kExternal;
  config.traversals_per_iteration = 100;
  TabularCfr<engine::KuhnPoker> cfr(game, config);
  for (int i = 0; i < 300; ++i) cfr.Iterate();
  const double exploitability = Exploitability(game, cfr);
  WARN("Kuhn external sampling, 300 x 2 x 100 traversals: exploitability " << exploitability);
  CHECK(exploitability < 0.01);
}

TEST_CASE("Tabular CFR, external sampling: Leduc exploitability < 0.05", "[tabular]") {
  engine::LeducPoker game;
  TabularCfrConfig config;
  config.runner.seed = 1;
  config.runner.cfr.scheme = Scheme::kExternal;
  config.traversals_per_iteration = 200;
  TabularCfr<engine::LeducPoker> cfr(game, config);
  for (int i = 0; i < 600; ++i) cfr.Iterate();
  const double exploitability = Exploitability(game, cfr);
  WARN("Leduc external sampling, 600 x 2 x 200 traversals: exploitability " << exploitability);
  CHECK(exploitability < 0.05);
}

// The sampled schemes converge too (curves in benchmarks/README.md).
TEST_CASE("Tabular CFR, outcome sampling: Kuhn exploitability < 0.03", "[tabular]") {
  engine::KuhnPoker game;
  TabularCfrConfig config;
  config.runner.seed = 1;
  config.runner.cfr.scheme = Scheme::kOutcome;
  config.runner.cfr.epsilon = 0.6;
  config.traversals_per_iteration = 100;
  TabularCfr<engine::KuhnPoker> cfr(game, config);
  for (int i = 0; i < 1000; ++i) cfr.Iterate();
  const double exploitability = Exploitability(game, cfr);
  WARN("Kuhn outcome sampling, 1000 x 2 x 100 traversals: exploitability " << exploitability);
  CHECK(exploitability < 0.03);
}

TEST_CASE("Tabular CFR, hybrid with random starts: Leduc exploitability < 0.1", "[tabular]") {
  engine::LeducPoker game;
  TabularCfrConfig config;
  config.runner.seed = 1;
  config.runner.cfr.scheme = Scheme::kHybrid;
  config.runner.cfr.hybrid_depth = 2;
  config.runner.cfr.start_depth_max = game.MaxDecisions() - 1;
  config.traversals_per_iteration = 200;
  TabularCfr<engine::LeducPoker> cfr(game, config);
  for (int i = 0; i < 1000; ++i) cfr.Iterate();
  const double exploitability = Exploitability(game, cfr);
  WARN("Leduc hybrid D=2 + random starts, 1000 x 2 x 200 traversals: exploitability "
       << exploitability);
  CHECK(exploitability < 0.1);
}

}  // namespace
}  // namespace lcfr::traversal
