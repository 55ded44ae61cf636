// training/distill.h: expert iteration on the shipped model (a few games, a small student, the
// search's rollouts by a scripted bot so that it stays cheap): the fit moves toward the search's
// choices, the search's answers do not depend on the threads, and the refusals. Plain
// distillation is exercised by tests/cli/cli_test.sh.
#include "training/distill.h"

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <string>

#include "engine/files.h"
#include "training/checkpoint.h"

namespace lcfr::training {
namespace {

std::string TempDir() {
  char name[] = "/tmp/lcfr_distill_test_XXXXXX";
  return ::mkdtemp(name);
}

DistillConfig SmallExpertIteration() {
  DistillConfig c;
  c.games = 8;
  c.holdout_games = 2;
  c.steps = 300;
  c.hidden_width = 16;
  c.seed = 5;
  c.search_states = 160;
  c.search.rollouts = 64;
  c.search.rollout_policy = "heuristic-balanced";  // no network in the rollouts: cheap
  c.search.threshold = 0.5;                        // more deviations to learn from
  return c;
}

TEST_CASE("Expert iteration fits the advantage networks toward the search's choices", "[distill]") {
  const absl::StatusOr<CheckpointPolicy> teacher = LoadModelPolicy(DefaultModelPath());
  REQUIRE(teacher.ok());
  const std::string dir = TempDir();
  DistillConfig config = SmallExpertIteration();
  config.workers = 2;
  const absl::StatusOr<DistillResult> two = Distill(*teacher, config, dir + "/two.pt");
  REQUIRE(two.ok());
  CHECK(two->searched_states == 160);
  REQUIRE(two->search_deviations > 10);
  CHECK(two->search_deviations < two->searched_states);
  // Where the search left the blueprint's draw, the student gives its choice more probability
  // than the teacher does: the targets there moved by +1 toward it.
  INFO("teacher " << two->search_choice_teacher << ", student " << two->search_choice_student);
  CHECK(two->search_choice_student > two->search_choice_teacher + 0.1);
  CHECK(PathExists(dir + "/two.pt"));
  CHECK(PathExists(dir + "/two.yaml"));

  // The search's choices (and so the targets) do not depend on how the states are spread over
  // threads: the same deviations, at states of the same teacher probability.
  config.workers = 1;
  const absl::StatusOr<DistillResult> one = Distill(*teacher, config, dir + "/one.pt");
  REQUIRE(one.ok());
  CHECK(one->search_deviations == two->search_deviations);
  CHECK(one->search_choice_teacher == Approx(two->search_choice_teacher).epsilon(1e-6));
  CHECK(RemoveTree(dir).ok());
}

TEST_CASE("Expert iteration's refusals name the flag", "[distill]") {
  DistillConfig config = SmallExpertIteration();
  config.play = play::PlayPolicy{play::PlayPolicy::Source::kAverage, false};
  absl::Status s = config.Validate();
  CHECK(absl::IsInvalidArgument(s));
  CHECK(std::string(s.message()).find("--search-states needs --policy current") !=
        std::string::npos);

  config.play =
      play::PlayPolicy{play::PlayPolicy::Source::kCurrent, true};  // greedy: b is no draw of pi
  CHECK(absl::IsInvalidArgument(config.Validate()));

  config = SmallExpertIteration();
  config.search.rollouts = 0;
  s = config.Validate();
  CHECK(std::string(s.message()).find("--rollouts") != std::string::npos);

  config = SmallExpertIteration();
  config.search_states = -1;
  s = config.Validate();
  CHECK(std::string(s.message()).find("--search-states must be in") != std::string::npos);

  // A rollout model named but not handed over (or handed over but not named) is refused before
  // any game is played.
  const absl::StatusOr<CheckpointPolicy> teacher = LoadModelPolicy(DefaultModelPath());
  REQUIRE(teacher.ok());
  config = SmallExpertIteration();
  config.search.rollout_policy = "";
  config.search.rollout_model = "student.pt";
  const std::string dir = TempDir();
  const absl::StatusOr<DistillResult> r = Distill(*teacher, config, dir + "/s.pt");
  CHECK(absl::IsInvalidArgument(r.status()));
  CHECK(!PathExists(dir + "/s.pt"));
  CHECK(!PathExists(dir + "/s.yaml"));
  CHECK(RemoveTree(dir).ok());
}

}  // namespace
}  // namespace lcfr::training
