// training/diagnostics.h: the fit figures, and the value check's determinism and invariants
// with network stand-ins (the real networks' figures are in benchmarks/README.md).
#include "training/diagnostics.h"

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "traversal/evaluators.h"

namespace lcfr::training {
namespace {

TEST_CASE("Fit: R^2, RMSE and the noise share", "[diagnostics]") {
  const std::vector<double> truth = {1, 2, 3, 4};
  const std::vector<double> noise = {0.25, 0.25, 0.25, 0.25};  // SST = 5
  const FitFigures exact = Fit(truth, truth, noise);
  CHECK(exact.r2 == 1.0);
  CHECK(exact.rmse == 0.0);
  CHECK(exact.noise_share == Approx(0.2));
  const std::vector<double> mean = {2.5, 2.5, 2.5, 2.5};
  CHECK(Fit(mean, truth, noise).r2 == Approx(0.0).margin(1e-12));
  const std::vector<double> off = {2, 3, 4, 5};  // off by one everywhere: SSE 4
  const FitFigures shifted = Fit(off, truth, noise);
  CHECK(shifted.r2 == Approx(1.0 - 4.0 / 5.0));
  CHECK(shifted.rmse == Approx(1.0));
}

traversal::EvaluatorFactory Pseudo(const engine::LostCities& game) {
  return [&game](int) -> std::unique_ptr<traversal::Evaluator> {
    return std::make_unique<traversal::PseudoNetworkEvaluator>(game.EncodingSize(),
                                                               game.num_actions(), 7);
  };
}

TEST_CASE("Value check: the same figures for any workers and width", "[diagnostics]") {
  const engine::LostCities game;
  ValueCheckOptions options;
  options.states = 6;
  options.rollouts = 3;
  options.start_depth_max = 60;
  options.workers = 1;
  options.width = 1;
  const auto a = CheckValueAccuracy(game, Pseudo(game), options);
  options.workers = 2;
  options.width = 4;
  const auto b = CheckValueAccuracy(game, Pseudo(game), options);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->pairs == b->pairs);
  CHECK(a->rollouts == b->rollouts);
  CHECK(a->rollouts == a->pairs * 3);
  CHECK(a->r2_q == b->r2_q);
  CHECK(a->r2_advantage == b->r2_advantage);
  CHECK(a->rmse_q == b->rmse_q);
  CHECK(a->sampled_target_variance == b->sampled_target_variance);
  CHECK(a->mean_sigma_entropy == b->mean_sigma_entropy);
  // Another seed, other states.
  options.seed = 2;
  const auto c = CheckValueAccuracy(game, Pseudo(game), options);
  REQUIRE(c.ok());
  CHECK(c->rmse_q != a->rmse_q);
}

TEST_CASE("Value check: a value network with equal outputs explains no advantage",
          "[diagnostics]") {
  // UniformEvaluator: uniform policies, and Q(s, a) = 1/n for every legal a, so every predicted
  // advantage is 0: the advantages' R^2 is at most 0. Q varies across states far more than a
  // mean of rollouts does, so more rollouts shrink the noise share of Q's variance.
  const engine::LostCities game;
  const traversal::EvaluatorFactory uniform = [](int) -> std::unique_ptr<traversal::Evaluator> {
    return std::make_unique<traversal::UniformEvaluator>();
  };
  ValueCheckOptions options;
  options.states = 8;
  options.start_depth_max = 40;
  options.rollouts = 4;
  const auto few = CheckValueAccuracy(game, uniform, options);
  options.rollouts = 32;
  const auto many = CheckValueAccuracy(game, uniform, options);
  REQUIRE(few.ok());
  REQUIRE(many.ok());
  CHECK(few->pairs == many->pairs);  // the same states
  CHECK(many->r2_advantage <= 0.0);
  CHECK(many->mean_sigma_entropy > 1.0);  // uniform over several actions
  INFO("noise share of Q: " << few->noise_share_q << " with 4 rollouts, " << many->noise_share_q
                            << " with 32");
  CHECK(many->noise_share_q < few->noise_share_q / 3);  // 1/8 expected
  CHECK(many->sampled_target_variance > 0.0);
}

TEST_CASE("Value check: bad options are refused", "[diagnostics]") {
  const engine::LostCities game;
  ValueCheckOptions options;
  options.rollouts = 1;
  const auto result = CheckValueAccuracy(game, Pseudo(game), options);
  REQUIRE_FALSE(result.ok());
  CHECK_THAT(std::string(result.status().message()), Catch::Contains("rollouts (1)"));
}

}  // namespace
}  // namespace lcfr::training
