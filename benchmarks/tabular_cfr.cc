// Convergence of tabular CFR run through the Deep CFR traversals (traversal/tabular_cfr.h), per
// game and sampling scheme: exact exploitability of the average strategy against the number of
// traversals. Prints a Markdown table (recorded in benchmarks/README.md).
//
//   build/benchmarks/tabular_cfr [max_traversals_per_player]   (default 1000000)
#include "traversal/tabular_cfr.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/exact.h"
#include "engine/kuhn.h"
#include "engine/leduc.h"

namespace lcfr::traversal {
namespace {

struct Variant {
  const char* name;
  CfrConfig cfr;
};

std::vector<Variant> Variants(int max_decisions) {
  std::vector<Variant> variants;
  CfrConfig external = FullRecordingCfrConfig();
  external.scheme = Scheme::kExternal;
  variants.push_back({"external", external});
  CfrConfig outcome = FullRecordingCfrConfig();
  outcome.scheme = Scheme::kOutcome;
  outcome.epsilon = 0.6;
  variants.push_back({"outcome eps=0.6", outcome});
  CfrConfig hybrid = FullRecordingCfrConfig();
  hybrid.scheme = Scheme::kHybrid;
  hybrid.hybrid_depth = 1;
  variants.push_back({"hybrid D=1", hybrid});
  hybrid.hybrid_depth = 2;
  hybrid.hybrid_actions = 2;
  hybrid.hybrid_epsilon = 0.1;
  variants.push_back({"hybrid D=2 k=2 eps=0.1", hybrid});
  hybrid.hybrid_depth = 1;
  hybrid.hybrid_actions = 0;
  hybrid.hybrid_epsilon = 0.0;
  hybrid.start_depth_max = max_decisions - 1;
  variants.push_back({"hybrid D=1 + random starts", hybrid});
  hybrid.hybrid_depth = 2;
  variants.push_back({"hybrid D=2 + random starts", hybrid});
  return variants;
}

template <typename G>
void Curve(const char* game_name, const G& game, const Variant& variant, int64_t max_traversals) {
  engine::ExactSolver<G> solver(game);
  TabularCfrConfig config;
  config.runner.seed = 1;
  config.runner.worker_chunk_size = 64;
  config.runner.cfr = variant.cfr;
  config.traversals_per_iteration = 100;
  TabularCfr<G> cfr(game, config);
  const auto start = std::chrono::steady_clock::now();
  int64_t next_report = 1000;
  while (true) {
    cfr.Iterate();
    const int64_t traversals =
        static_cast<int64_t>(cfr.iteration()) * config.traversals_per_iteration;
    if (traversals < next_report) continue;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double exploitability =
        solver
            .Exploitability([&](const auto& s, std::span<float> out) { cfr.AveragePolicy(s, out); })
            .exploitability;
    const WorkerStats stats = cfr.runner().TotalStats();
    std::printf("| %s | %s | %lld | %lld | %.5f | %.2f |\n", game_name, variant.name,
                static_cast<long long>(traversals), static_cast<long long>(stats.nodes),
                exploitability, seconds);
    std::fflush(stdout);
    if (next_report >= max_traversals) break;
    next_report *= 10;
  }
}

}  // namespace
}  // namespace lcfr::traversal

int main(int argc, char** argv) {
  using namespace lcfr;
  const int64_t max_traversals = argc > 1 ? std::atoll(argv[1]) : 1000000;
  if (max_traversals < 1000) {
    std::fprintf(stderr, "usage: tabular_cfr [max_traversals_per_player >= 1000]\n");
    return 2;
  }
  std::printf("| game | scheme | traversals per player | nodes | exploitability | seconds |\n");
  std::printf("|---|---|---:|---:|---:|---:|\n");
  const engine::KuhnPoker kuhn;
  const engine::LeducPoker leduc;
  for (const auto& variant : traversal::Variants(kuhn.MaxDecisions())) {
    traversal::Curve("Kuhn", kuhn, variant, max_traversals);
  }
  for (const auto& variant : traversal::Variants(leduc.MaxDecisions())) {
    traversal::Curve("Leduc", leduc, variant, max_traversals);
  }
  return 0;
}
