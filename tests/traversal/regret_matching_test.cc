#include "traversal/regret_matching.h"

#include <array>
#include <catch2/catch.hpp>
#include <vector>

namespace lcfr::traversal {
namespace {

TEST_CASE("Regret matching: positive parts over legal actions", "[rm]") {
  const std::array<float, 4> adv = {2.0f, -1.0f, 6.0f, 100.0f};  // action 3 illegal
  std::array<float, 4> out;
  RegretMatching(adv, 0b0111, out, RmFallback::kUniform);
  CHECK(out[0] == Approx(0.25));
  CHECK(out[1] == 0.0f);
  CHECK(out[2] == Approx(0.75));
  CHECK(out[3] == 0.0f);
}

TEST_CASE("Regret matching: fallbacks when nothing is positive", "[rm]") {
  const std::array<double, 4> adv = {-3.0, -1.0, -1.0, 0.0};  // action 3 illegal
  std::array<float, 4> out;
  RegretMatching(adv, 0b0111, out, RmFallback::kUniform);
  CHECK(out[0] == Approx(1.0 / 3));
  CHECK(out[1] == Approx(1.0 / 3));
  CHECK(out[2] == Approx(1.0 / 3));
  CHECK(out[3] == 0.0f);
  RegretMatching(adv, 0b0111, out, RmFallback::kArgmax);  // a tie between 1 and 2
  CHECK(out[0] == 0.0f);
  CHECK(out[1] == Approx(0.5));
  CHECK(out[2] == Approx(0.5));
  CHECK(out[3] == 0.0f);
  RegretMatching(adv, 0b0001, out, RmFallback::kArgmax);
  CHECK(out[0] == 1.0f);
}

}  // namespace
}  // namespace lcfr::traversal
