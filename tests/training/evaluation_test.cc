// Policy evaluation, the trainer's part: the Lost Cities matches against the configured bots
// (a real network through MakeEvaluators and the fiber batcher) and the toy games' exact
// exploitability of the strategy network's softmax policy.
#include "training/evaluation.h"

#include <torch/types.h>
#include <torch/utils.h>

#include <catch2/catch.hpp>
#include <memory>

#include "engine/kuhn.h"
#include "inference/model_store.h"
#include "tests/training/game_networks.h"
#include "training/exact_evaluation.h"

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

}  // namespace
}  // namespace lcfr::training
