// The search's networks on the inference config's device (training/compose.h's MakeSearchPlayer:
// lcfr agent --search --device, lcfr play --search --device): a real network through the fused
// evaluator, on the CPU and, where a GPU is visible, on CUDA against the CPU.
#include <torch/cuda.h>
#include <torch/types.h>

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "engine/lost_cities.h"
#include "inference/model_store.h"
#include "search/player.h"
#include "tests/training/game_networks.h"
#include "training/compose.h"

namespace lcfr::training {
namespace {

using search::Blueprint;
using search::SearchConfig;
using search::SearchDecision;
using search::SearchReport;
using testing::GameNetworks;

// The decisions of a search over `store` on `device` (fp32) at eight positions: the deals of
// seeds 1-8 after a few random turns each.
std::vector<SearchDecision> Decide(const engine::LostCities& game,
                                   std::shared_ptr<const inference::ModelStore> store,
                                   inference::Device device, SearchReport& report) {
  Blueprint blueprint;
  blueprint.play.source = play::PlayPolicy::Source::kCurrent;
  SearchConfig config;
  config.rollouts = 48;
  config.candidates = 3;
  config.workers = 2;
  config.width = 16;
  inference::InferenceConfig inference;
  inference.device = device;
  inference.precision = inference::Precision::kFp32;
  auto player = MakeSearchPlayer(game, blueprint, config, std::move(store), nullptr, inference);
  CATCH_INFO(player.status().message());
  CATCH_REQUIRE(player.ok());
  std::vector<SearchDecision> decisions;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    engine::State s = game.DealFromSeed(seed);
    Rng prefix(seed);
    for (int j = 0; j < static_cast<int>(seed) * 4; ++j) {  // whole turns: a card decision
      const std::vector<int> legal = game.LegalActions(s);
      game.ApplyUnchecked(s, legal[prefix.Uniform(static_cast<uint32_t>(legal.size()))]);
    }
    Rng rng(seed * 17);
    (*player)->ActOnState(game, s, rng);
    decisions.push_back((*player)->last_decision());
  }
  report = (*player)->report();
  return decisions;
}

engine::Rules ShortRules() {
  engine::Rules rules;
  rules.max_decisions = 150;  // a random network's games are long
  return rules;
}

CATCH_TEST_CASE("MakeSearchPlayer: the search's network on the CPU, deterministic",
                "[search][device]") {
  const engine::LostCities game(ShortRules());
  const auto store = std::make_shared<inference::ModelStore>(GameNetworks(game, 4));
  SearchReport first_report, again_report;
  const auto first = Decide(game, store, inference::Device::kCpu, first_report);
  const auto again = Decide(game, store, inference::Device::kCpu, again_report);
  // Its rollouts asked the network, in batches.
  CATCH_CHECK(first_report.searched == 8);
  CATCH_CHECK(first_report.policy_calls > 0);
  CATCH_CHECK(first_report.rows_per_batch() > 1.0);
  for (size_t i = 0; i < first.size(); ++i) {
    CATCH_CHECK(first[i].rollouts >= 48);
    CATCH_CHECK(again[i].candidates == first[i].candidates);
    CATCH_CHECK(again[i].mean == first[i].mean);
    CATCH_CHECK(again[i].chosen == first[i].chosen);
  }
}

// Runs only where a CUDA device is visible (scripts/gpu_check.sh): the same searches on CUDA.
// The CUDA forward agrees with the CPU's to about 1e-6, not bit for bit, so a rollout's sampled
// action can differ where its draw falls that close to a boundary of the distribution: about 1%
// of such decisions here. Every decision must root the same candidates and rollouts, and all
// but at most two of the eight the same means bit for bit (sampled actions all the same); a
// misrouted row or a wrong output would leave none the same.
CATCH_TEST_CASE("MakeSearchPlayer: the search on CUDA decides as on the CPU", "[search][cuda]") {
  if (!torch::cuda::is_available()) {
    CATCH_WARN("no CUDA device: the search's CUDA path is compiled but not exercised here");
    return;
  }
  const engine::LostCities game(ShortRules());
  const auto store = std::make_shared<inference::ModelStore>(GameNetworks(game, 4));
  SearchReport cpu_report, cuda_report;
  const auto cpu = Decide(game, store, inference::Device::kCpu, cpu_report);
  const auto cuda = Decide(game, store, inference::Device::kCuda, cuda_report);
  CATCH_CHECK(cuda_report.searched == cpu_report.searched);
  CATCH_CHECK(cuda_report.rows_per_batch() > 1.0);
  int same = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    CATCH_CHECK(cuda[i].candidates == cpu[i].candidates);
    CATCH_CHECK(cuda[i].rollouts == cpu[i].rollouts);
    if (cuda[i].mean == cpu[i].mean) {
      ++same;
      CATCH_CHECK(cuda[i].chosen == cpu[i].chosen);
    }
  }
  CATCH_INFO(same << " of " << cpu.size() << " decisions the same on CUDA as on the CPU");
  CATCH_CHECK(same >= static_cast<int>(cpu.size()) - 2);
}

}  // namespace
}  // namespace lcfr::training
