#include "training/fault_plan.h"

#include <catch2/catch.hpp>
#include <string>

namespace lcfr::training {
namespace {

TEST_CASE("FaultPlan: parses ACTION:RANK:ITERATION[:STEP] and names what is wrong",
          "[fault_plan]") {
  const auto plan = FaultPlan::Parse("hang:1:3:published");
  REQUIRE(plan.ok());
  CHECK(plan->action == FaultPlan::Action::kHang);
  CHECK(plan->rank == 1);
  CHECK(plan->iteration == 3);
  CHECK(plan->step == FaultStep::kPublished);
  const auto start = FaultPlan::Parse("exit:0:2");
  REQUIRE(start.ok());
  CHECK(start->step == FaultStep::kStart);
  auto message = [](std::string_view spec) {
    return std::string(FaultPlan::Parse(spec).status().message());
  };
  CHECK_THAT(message("exit:1"), Catch::Contains("wrong number of fields"));
  CHECK_THAT(message("explode:1:2"), Catch::Contains("unknown action 'explode'"));
  CHECK_THAT(message("exit:one:2"), Catch::Contains("rank 'one'"));
  CHECK_THAT(message("exit:1:0"), Catch::Contains("iteration '0'"));
  CHECK_THAT(message("exit:1:2:later"), Catch::Contains("unknown step 'later'"));
  CHECK_THAT(message("exit:1:2:later"), Catch::Contains("LCFR_TEST_FAULT='exit:1:2:later'"));
}

}  // namespace
}  // namespace lcfr::training
