// training/distill.h: plain distillation of the shipped model into a small student (a few games,
// a few hundred steps): it fits (its held-out error well below the teacher's variance and its
// policies agreeing with the teacher's more than chance), it is written as a model every loader
// reads (its checksums included), and the refusals.
#include "training/distill.h"

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <string>

#include "base/files.h"
#include "training/checkpoint.h"
#include "training/shipped_models.h"

namespace lcfr::training {
namespace {

std::string TempDir() {
  char name[] = "/tmp/lcfr_distill_test_XXXXXX";
  return ::mkdtemp(name);
}

DistillConfig Small() {
  DistillConfig c;
  c.games = 12;
  c.holdout_games = 3;
  c.steps = 400;
  c.hidden_width = 16;
  c.seed = 5;
  c.workers = 2;
  return c;
}

TEST_CASE("Distillation fits a student that plays like its teacher", "[distill]") {
  const absl::StatusOr<CheckpointPolicy> teacher = LoadModelPolicy(DefaultModelPath());
  REQUIRE(teacher.ok());
  const std::string dir = TempDir();
  const absl::StatusOr<DistillResult> r = Distill(*teacher, Small(), dir + "/student.pt");
  REQUIRE(r.ok());
  CHECK(r->student_weights < r->teacher_weights);
  CHECK(r->train_states > 500);
  CHECK(r->holdout_states > 100);
  // Every network the teacher uses is fitted, and explains much of the held-out variance.
  REQUIRE(r->networks.size() == 4);  // two advantage networks, the strategy and the value networks
  for (const DistilledNetwork& d : r->networks) {
    INFO(d.name << ": held-out MSE " << d.holdout_mse << " of variance " << d.holdout_variance);
    CHECK(d.train > 0);
    CHECK(d.holdout_variance > 0);
    CHECK(d.holdout_mse < 0.7 * d.holdout_variance);
  }
  // Its policies pick the teacher's most probable action far more often than one of the legal
  // actions at random would (about 1 in 9 at a card decision).
  CHECK(r->current.greedy > 0.4);
  CHECK(r->average.greedy > 0.4);
  CHECK(r->current.total_variation < 0.6);
  // A model every loader reads: networks, configuration and their checksums.
  const absl::StatusOr<CheckpointPolicy> student = LoadModelPolicy(dir + "/student.pt");
  REQUIRE(student.ok());
  CHECK(student->config.network.hidden_width == 16);
  CHECK(student->config.rules == teacher->config.rules);
  CHECK(PathExists(dir + "/checksums.json"));
}

TEST_CASE("Distillation refuses bad settings, naming the flag", "[distill]") {
  const absl::StatusOr<CheckpointPolicy> teacher = LoadModelPolicy(DefaultModelPath());
  REQUIRE(teacher.ok());
  const std::string dir = TempDir();
  auto message = [&](const DistillConfig& c, const std::string& out) {
    const absl::StatusOr<DistillResult> r = Distill(*teacher, c, out);
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  DistillConfig c = Small();
  c.holdout_games = c.games;
  CHECK_THAT(message(c, dir + "/s.pt"), Catch::Contains("--holdout-games must be in"));
  c = Small();
  c.hidden_width = 0;
  CHECK_THAT(message(c, dir + "/s.pt"), Catch::Contains("--hidden-width must be in"));
  CHECK_THAT(message(Small(), dir + "/s.bin"),
             Catch::Contains("--out must name a networks file ending in .pt"));
  CHECK_FALSE(PathExists(dir + "/s.pt"));
  CHECK_FALSE(PathExists(dir + "/s.yaml"));
}

}  // namespace
}  // namespace lcfr::training
