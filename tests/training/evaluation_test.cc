// Policy evaluation, the trainer's part: the Lost Cities matches against the configured bots
// (a real network through MakeEvaluators and the fiber batcher) and the toy games' exact
// exploitability of the strategy network's softmax policy and of the strategy memory's mean.
#include "training/evaluation.h"

#include <torch/types.h>
#include <torch/utils.h>

#include <catch2/catch.hpp>
#include <memory>

#include "engine/kuhn.h"
#include "engine/leduc.h"
#include "inference/model_store.h"
#include "tests/training/game_networks.h"
#include "training/exact_evaluation.h"
#include "training/memory.h"
#include "traversal/samples.h"

namespace lcfr::training {
namespace {

using testing::GameNetworks;

CATCH_TEST_CASE("PlayEvaluationMatches: one result per opponent, deterministic, errors named",
                "[evaluation]") {
  const engine::LostCities game;
  const auto store = std::make_shared<inference::ModelStore>(GameNetworks(game, 3));
  inference::InferenceConfig inference;
  inference.precision = inference::Precision::kFp32;
  EvaluationConfig config;
  config.opponents = {"random", "discard-only"};
  config.games = 8;
  config.workers = 2;
  const auto first = PlayEvaluationMatches(game, store, inference, config, 11);
  CATCH_REQUIRE(first.ok());
  // The default keys (the first policy) for each opponent, then each policy's.
  const size_t policies = config.policies.size();
  CATCH_REQUIRE(policies == 4);
  CATCH_REQUIRE(first->size() == 2 * (1 + policies));
  for (size_t i = 0; i < first->size(); ++i) {
    const BotResult& r = (*first)[i];
    CATCH_CHECK(r.opponent == config.opponents[i % 2]);
    CATCH_CHECK(r.policy == (i < 2 ? std::string() : config.policies[(i - 2) / 2]));
    CATCH_CHECK(r.games == 8);
    CATCH_CHECK(r.ci_low <= r.win_rate);
    CATCH_CHECK(r.win_rate <= r.ci_high);
    CATCH_CHECK(r.colors_opened >= 0);
    CATCH_CHECK(r.colors_opened <= 5);
  }
  // The first policy's own entries repeat the default ones.
  CATCH_CHECK((*first)[2].win_rate == (*first)[0].win_rate);
  CATCH_CHECK((*first)[3].mean_score_diff == (*first)[1].mean_score_diff);
  const auto again = PlayEvaluationMatches(game, store, inference, config, 11);
  CATCH_REQUIRE(again.ok());
  for (size_t i = 0; i < first->size(); ++i) {
    CATCH_CHECK((*again)[i].win_rate == (*first)[i].win_rate);
    CATCH_CHECK((*again)[i].mean_score_diff == (*first)[i].mean_score_diff);
  }
  config.opponents = {"random", "grandmaster"};
  const auto bad = PlayEvaluationMatches(game, store, inference, config, 11);
  CATCH_REQUIRE(!bad.ok());
  CATCH_CHECK(std::string(bad.status().message()).find("grandmaster") != std::string::npos);
}

CATCH_TEST_CASE("ExactPolicyExploitability: the softmax policy of the network, evaluated exactly",
                "[evaluation]") {
  const engine::KuhnPoker kuhn;
  inference::NetworkSet nets = GameNetworks(kuhn, 5);
  // Zero weights give zero logits: the uniform policy, whose Kuhn NashConv is known exactly
  // from the exact solver on the same policy.
  {
    torch::NoGradGuard guard;
    for (auto& p : nets.nets[0]->parameters()) p.zero_();
  }
  const engine::ExploitabilityResult result =
      ExactPolicyExploitability(kuhn, nets.nets[0], torch::kCPU);
  const engine::ExactSolver<engine::KuhnPoker> solver(kuhn);
  const engine::ExploitabilityResult uniform =
      solver.Exploitability([](const engine::KuhnPoker::State&, std::span<float> out) {
        for (float& p : out) p = 0.5f;
      });
  CATCH_CHECK(result.nash_conv == Approx(uniform.nash_conv).epsilon(1e-6));
  CATCH_CHECK(result.exploitability == Approx(uniform.nash_conv / 2).epsilon(1e-6));
  CATCH_CHECK(result.nash_conv > 0.1);
}

CATCH_TEST_CASE("MemoryMeanExploitability: the weighted mean of the memory's targets per infoset",
                "[evaluation]") {
  // Every Kuhn infoset but the first gets two samples, (1, 0) at iteration 1 and (0, 1) at
  // iteration 3: with linear weighting their mean is (0.25, 0.75); the first infoset has none
  // and plays uniformly.
  const engine::KuhnPoker kuhn;
  const engine::ExactSolver<engine::KuhnPoker> solver(kuhn);
  const GameFeatureEncoder<engine::KuhnPoker> encoder(kuhn);
  traversal::SampleBuffer buffer(encoder.shape());
  std::vector<float> features(kuhn.EncodingSize());
  const auto& infosets = solver.infosets();
  for (size_t k = 1; k < infosets.size(); ++k) {
    const engine::KuhnPoker::State& s = infosets[k].representative;
    const engine::KuhnPoker::View view = kuhn.MoverView(s);
    kuhn.Encode(view, features);
    for (int iteration : {1, 3}) {
      const size_t i = buffer.Add(features, std::as_bytes(std::span(&view, 1)), kuhn.LegalMask(s),
                                  1.0f, iteration, kuhn.CurrentPlayer(s), 0);
      buffer.target(i)[iteration == 1 ? 0 : 1] = 1.0f;
    }
  }
  SampleMemory memory(100, encoder, Retention::kReservoir);
  Rng rng(1);
  memory.Add(buffer, rng);
  OptimizerConfig config;  // linear weighting
  const std::string first = infosets[0].key;
  const engine::ExploitabilityResult expected =
      solver.Exploitability([&](const engine::KuhnPoker::State& s, std::span<float> out) {
        kuhn.Encode(s, features);
        const bool is_first = engine::InfosetKey(kuhn.CurrentPlayer(s), features) == first;
        out[0] = is_first ? 0.5f : 0.25f;
        out[1] = is_first ? 0.5f : 0.75f;
      });
  const engine::ExploitabilityResult result = MemoryMeanExploitability(kuhn, memory, config);
  CATCH_CHECK(result.nash_conv == Approx(expected.nash_conv).epsilon(1e-6));
  // Without linear weighting the two samples weigh the same: (0.5, 0.5) everywhere.
  config.linear_weighting = false;
  const engine::ExploitabilityResult uniform =
      solver.Exploitability([](const engine::KuhnPoker::State&, std::span<float> out) {
        for (float& p : out) p = 0.5f;
      });
  CATCH_CHECK(MemoryMeanExploitability(kuhn, memory, config).nash_conv ==
              Approx(uniform.nash_conv).epsilon(1e-6));
  // Leduc's infosets have distinct encodings too; an empty memory is the uniform policy.
  const engine::LeducPoker leduc;
  const GameFeatureEncoder<engine::LeducPoker> leduc_encoder(leduc);
  const SampleMemory empty(10, leduc_encoder, Retention::kReservoir);
  const engine::ExactSolver<engine::LeducPoker> leduc_solver(leduc);
  const engine::ExploitabilityResult leduc_uniform =
      leduc_solver.Exploitability([&](const engine::LeducPoker::State& s, std::span<float> out) {
        const uint32_t legal = leduc.LegalMask(s);
        for (int a = 0; a < leduc.num_actions(); ++a) {
          out[a] = (legal >> a & 1) ? 1.0f / static_cast<float>(std::popcount(legal)) : 0.0f;
        }
      });
  CATCH_CHECK(MemoryMeanExploitability(leduc, empty, config).nash_conv ==
              Approx(leduc_uniform.nash_conv).epsilon(1e-6));
}

}  // namespace
}  // namespace lcfr::training
