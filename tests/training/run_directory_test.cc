// The run directory: names, the checkpoint commit sequence, idempotent retention, truncation of
// metrics.jsonl, and paths that a shell would have misread.
#include "training/run_directory.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "base/files.h"
#include "training/checksums.h"

namespace lcfr::training {
namespace {

std::string TempDir() {
  char name[] = "/tmp/lcfr_run_directory_test_XXXXXX";
  return ::mkdtemp(name);
}

// Stages and publishes a checkpoint of iteration t holding networks.pt and one memory.
void Commit(const RunDirectory& dir, int t, int keep_every) {
  REQUIRE(dir.PrepareStaging(t).ok());
  REQUIRE(WriteFileAtomically(dir.StagingPath(t) + "/networks.pt", "n").ok());
  REQUIRE(WriteFileAtomically(dir.ShardPath(dir.StagingPath(t), "advantage0"), "m").ok());
  REQUIRE(dir.Publish(t, keep_every).ok());
}

std::vector<std::string> Checkpoints(const RunDirectory& dir) {
  auto names = ListDirectory(dir.CheckpointsPath());
  REQUIRE(names.ok());
  return *names;
}

TEST_CASE("RunDirectory: names and shard files", "[run_directory]") {
  CHECK(RunDirectory::CheckpointName(12) == "iter_000012");
  CHECK(RunDirectory::IterationOf("iter_000012") == 12);
  CHECK(RunDirectory::IterationOf("iter_") == -1);
  CHECK(RunDirectory::IterationOf("iter_12x") == -1);
  CHECK(RunDirectory::IterationOf("LATEST") == -1);
  const RunDirectory single("/r");
  CHECK(single.ShardPath("/r/c", "strategy") == "/r/c/strategy.s0.mem");
  CHECK(single.ShardPath("/r/c", "strategy", 2) == "/r/c/strategy.s2.mem");
  const RunDirectory rank1("/r", 1, 3);
  CHECK(rank1.ShardPath("/r/c", "advantage0", 1) == "/r/c/advantage0.rank1.s1.mem");
  CHECK(single.StagingPath(3) == "/r/checkpoints/iter_000003.tmp");
}

TEST_CASE("RunDirectory: publish replaces LATEST and retains every keep_every-th without memories",
          "[run_directory]") {
  const RunDirectory dir(TempDir() + "/run");
  REQUIRE(dir.Create(false).ok());
  CHECK(!dir.Latest().ok());
  for (int t = 1; t <= 5; ++t) Commit(dir, t, 2);
  CHECK(*dir.Latest() == "iter_000005");
  CHECK(Checkpoints(dir) ==
        std::vector<std::string>{"LATEST", "iter_000002", "iter_000004", "iter_000005"});
  CHECK(PathExists(dir.CheckpointPath(5) + "/advantage0.s0.mem"));
  CHECK(!PathExists(dir.CheckpointPath(4) + "/advantage0.s0.mem"));
  CHECK(PathExists(dir.CheckpointPath(4) + "/networks.pt"));
  // A fresh run refuses the directory; a resume takes it.
  CHECK_THAT(std::string(dir.Create(false).message()), Catch::Contains("use --resume"));
  CHECK(dir.Create(true).ok());
  REQUIRE(RemoveTree(dir.root()).ok());
  CHECK(!PathExists(dir.root()));
}

TEST_CASE("RunDirectory: retention is idempotent and cleans what an interrupted commit left",
          "[run_directory]") {
  const RunDirectory dir(TempDir() + "/run");
  REQUIRE(dir.Create(false).ok());
  Commit(dir, 1, 0);
  Commit(dir, 2, 0);
  // As if a kill had struck after LATEST was replaced and before the previous checkpoint was
  // removed, and another during a later staging.
  REQUIRE(MakeDirectories(dir.CheckpointPath(1)).ok());
  REQUIRE(WriteFileAtomically(dir.CheckpointPath(1) + "/advantage0.s0.mem", "m").ok());
  REQUIRE(MakeDirectories(dir.StagingPath(3)).ok());
  // And temporaries of atomic writes cut short.
  // (base/atomic_file.h names them FILE.tmp.<pid>.<n>.)
  REQUIRE(WriteFileAtomically(dir.CheckpointsPath() + "/LATEST.tmp.77.0", "iter_0000").ok());
  REQUIRE(WriteFileAtomically(dir.MetricsPath() + ".tmp.77.1", "{").ok());
  REQUIRE(WriteFileAtomically(dir.SummaryPath() + ".tmp.78.0", "{").ok());
  REQUIRE(dir.Retain(0).ok());
  CHECK(Checkpoints(dir) == std::vector<std::string>{"LATEST", "iter_000002"});
  CHECK(!PathExists(dir.MetricsPath() + ".tmp.77.1"));
  CHECK(!PathExists(dir.SummaryPath() + ".tmp.78.0"));
  REQUIRE(dir.Retain(0).ok());  // again: nothing changes
  CHECK(Checkpoints(dir) == std::vector<std::string>{"LATEST", "iter_000002"});
  CHECK(PathExists(dir.CheckpointPath(2) + "/advantage0.s0.mem"));
  REQUIRE(RemoveTree(dir.root()).ok());
}

TEST_CASE("RunDirectory: truncating metrics keeps whole lines up to the iteration",
          "[run_directory]") {
  const RunDirectory dir(TempDir());
  REQUIRE(WriteFileAtomically(dir.MetricsPath(),
                              "{\"iteration\":1}\n{\"iteration\":2}\n{\"iteration\":3}\n{\"itera")
              .ok());
  REQUIRE(dir.TruncateMetrics(2).ok());
  CHECK(*ReadFileToString(dir.MetricsPath()) == "{\"iteration\":1}\n{\"iteration\":2}\n");
  REQUIRE(RemoveTree(dir.root()).ok());
}

TEST_CASE("RunDirectory: the checkpoint's committed metrics line comes back when it is missing",
          "[run_directory]") {
  const RunDirectory dir(TempDir());
  // A kill between publishing iteration 2's checkpoint and appending its line.
  REQUIRE(WriteFileAtomically(dir.MetricsPath(), "{\"iteration\":1}\n").ok());
  REQUIRE(dir.TruncateMetrics(2, "{\"iteration\":2,\"x\":1}").ok());
  CHECK(*ReadFileToString(dir.MetricsPath()) == "{\"iteration\":1}\n{\"iteration\":2,\"x\":1}\n");
  // Present already: not appended twice.
  REQUIRE(dir.TruncateMetrics(2, "{\"iteration\":2,\"x\":1}").ok());
  CHECK(*ReadFileToString(dir.MetricsPath()) == "{\"iteration\":1}\n{\"iteration\":2,\"x\":1}\n");
  REQUIRE(RemoveTree(dir.root()).ok());
}

TEST_CASE("RunDirectory: a path with shell syntax is only a name", "[run_directory]") {
  const std::string base = TempDir();
  const RunDirectory dir(base + "/r';touch INJECTED;'");
  REQUIRE(dir.Create(false).ok());
  Commit(dir, 1, 0);
  Commit(dir, 2, 0);
  CHECK(Checkpoints(dir) == std::vector<std::string>{"LATEST", "iter_000002"});
  CHECK(!PathExists("INJECTED"));
  CHECK(!PathExists(base + "/INJECTED"));
  REQUIRE(RemoveTree(base).ok());
  CHECK(!PathExists(base));
}

TEST_CASE(
    "RunDirectory: a fresh run refuses a directory that is not a run, and starts over one "
    "that never reached a checkpoint",
    "[run_directory]") {
  const std::string base = TempDir();
  // The user's files: refused, untouched.
  const RunDirectory user(base + "/user");
  REQUIRE(MakeDirectories(user.root()).ok());
  REQUIRE(WriteFileAtomically(user.MetricsPath(), "{\"mine\":1}\n").ok());
  const absl::Status refused = user.Create(false);
  CHECK(refused.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(refused.message()), Catch::Contains("holds no run of lcfr"));
  CHECK(*ReadFileToString(user.MetricsPath()) == "{\"mine\":1}\n");
  // A run killed before its first checkpoint: config, empty metrics, a staging directory.
  const RunDirectory unstarted(base + "/unstarted");
  REQUIRE(unstarted.Create(false).ok());
  REQUIRE(WriteFileAtomically(unstarted.ConfigPath(), "run: {}\n").ok());
  REQUIRE(WriteFileAtomically(unstarted.MetricsPath(), "").ok());
  REQUIRE(unstarted.PrepareStaging(1).ok());
  REQUIRE(unstarted.Create(false).ok());
  CHECK(*ListDirectory(unstarted.root()) == std::vector<std::string>{"checkpoints"});
  CHECK(ListDirectory(unstarted.CheckpointsPath())->empty());
  // RemoveUnstarted takes the directory away entirely.
  REQUIRE(WriteFileAtomically(unstarted.ConfigPath(), "run: {}\n").ok());
  REQUIRE(unstarted.RemoveUnstarted().ok());
  CHECK(!PathExists(unstarted.root()));
  // A run with a checkpoint: refused, pointing at --resume.
  const RunDirectory run(base + "/run");
  REQUIRE(run.Create(false).ok());
  Commit(run, 1, 0);
  CHECK_THAT(std::string(run.Create(false).message()), Catch::Contains("use --resume"));
  // A file in the way.
  REQUIRE(WriteFileAtomically(base + "/file", "x").ok());
  CHECK_THAT(std::string(RunDirectory(base + "/file").Create(false).message()),
             Catch::Contains("is not a directory"));
  REQUIRE(RemoveTree(base).ok());
}

TEST_CASE("Checksums: every file listed, verified on read, carried over for hard links",
          "[run_directory]") {
  const std::string base = TempDir();
  const std::string first = base + "/iter_1", second = base + "/iter_2";
  REQUIRE(MakeDirectories(first).ok());
  REQUIRE(MakeDirectories(second).ok());
  // Without checksums.json (a checkpoint of an earlier version) nothing is verified.
  REQUIRE(WriteFileAtomically(first + "/networks.pt", "weights").ok());
  REQUIRE(WriteFileAtomically(first + "/a.s0.mem", std::string(3000, 'x')).ok());
  absl::StatusOr<Checksums> none = Checksums::Load(first);
  REQUIRE(none.ok());
  CHECK(!none->present());
  CHECK(none->Verify("networks.pt").ok());

  REQUIRE(WriteChecksums(first, "").ok());
  absl::StatusOr<Checksums> sums = Checksums::Load(first);
  REQUIRE(sums.ok());
  CHECK(sums->files().size() == 2);
  CHECK(sums->files().at("networks.pt").bytes == 7);
  CHECK(sums->files().at("networks.pt").crc32 == ChecksumFile(first + "/networks.pt")->crc32);
  CHECK(sums->Verify("networks.pt").ok());
  // A flipped byte, a truncation, a file not listed: each an error naming the file.
  REQUIRE(WriteFileAtomically(first + "/networks.pt", "weighTs").ok());
  const absl::Status flipped = sums->Verify("networks.pt");
  CHECK(flipped.code() == absl::StatusCode::kDataLoss);
  CHECK_THAT(std::string(flipped.message()),
             Catch::Contains("iter_1/networks.pt: checksum mismatch") &&
                 Catch::Contains("the file is corrupt"));
  REQUIRE(WriteFileAtomically(first + "/networks.pt", "weigh").ok());
  CHECK_THAT(std::string(sums->Verify("networks.pt").message()),
             Catch::Contains("5 bytes, checksums.json says 7"));
  CHECK_THAT(std::string(sums->Verify("stray.mem").message()),
             Catch::Contains("not listed in checksums.json"));
  REQUIRE(WriteFileAtomically(first + "/networks.pt", "weights").ok());

  // The next checkpoint links the segment: its entry is carried over (same inode), and a file
  // written anew is summed.
  REQUIRE(::link((first + "/a.s0.mem").c_str(), (second + "/a.s0.mem").c_str()) == 0);
  REQUIRE(WriteFileAtomically(second + "/networks.pt", "other weights").ok());
  REQUIRE(WriteChecksums(second, first).ok());
  absl::StatusOr<Checksums> next = Checksums::Load(second);
  REQUIRE(next.ok());
  CHECK(next->files().at("a.s0.mem") == sums->files().at("a.s0.mem"));
  CHECK(next->Verify("a.s0.mem").ok());
  CHECK(next->Verify("networks.pt").ok());

  // A malformed checksums.json is an error naming it.
  REQUIRE(WriteFileAtomically(second + "/checksums.json", "{\"format\": 1, \"files\": []}").ok());
  CHECK_THAT(std::string(Checksums::Load(second).status().message()),
             Catch::Contains("checksums.json: \"files\" must be an object"));
  REQUIRE(RemoveTree(base).ok());
}

TEST_CASE("Files: mkdir -p, listing and removal without a shell", "[files]") {
  const std::string base = TempDir();
  REQUIRE(MakeDirectories(base + "/a/b/c").ok());
  REQUIRE(MakeDirectories(base + "/a/b/c").ok());  // exists: fine
  REQUIRE(WriteFileAtomically(base + "/a/x.mem", "1").ok());
  REQUIRE(WriteFileAtomically(base + "/a/y.mem", "1").ok());
  REQUIRE(WriteFileAtomically(base + "/a/y.txt", "1").ok());
  CHECK(*RemoveFiles(base + "/a", "", ".mem") == 2);
  CHECK(*ListDirectory(base + "/a") == std::vector<std::string>{"b", "y.txt"});
  // A file in the way is an error that names it.
  CHECK_THAT(std::string(MakeDirectories(base + "/a/y.txt").message()), Catch::Contains("y.txt"));
  // A symbolic link is removed, not followed.
  const std::string outside = TempDir();
  REQUIRE(WriteFileAtomically(outside + "/keep", "1").ok());
  REQUIRE(::symlink(outside.c_str(), (base + "/a/link").c_str()) == 0);
  REQUIRE(RemoveTree(base).ok());
  CHECK(!PathExists(base));
  CHECK(PathExists(outside + "/keep"));
  REQUIRE(RemoveTree(outside).ok());
  CHECK(RemoveTree(outside).ok());  // missing: fine
}

}  // namespace
}  // namespace lcfr::training

namespace lcfr::training {
namespace {

TEST_CASE("CheckpointState: state.json of the wrong shape is refused, naming file and key",
          "[run_directory]") {
  const std::string path = "/r/checkpoints/iter_000002/state.json";
  const auto good = CheckpointState::Parse(
      path, R"({"iteration": 2, "strategy_trained": true, "game": "kuhn", "world_size": 2})", 2);
  REQUIRE(good.ok());
  CHECK(good->iteration == 2);
  CHECK(good->strategy_trained);
  CHECK(good->game == "kuhn");
  CHECK(good->world_size == 2);
  auto message = [&path](const std::string& text) {
    return std::string(CheckpointState::Parse(path, text, 2).status().message());
  };
  CHECK_THAT(message("[1, 2]"), Catch::Contains(path + ": expected a JSON object, got array"));
  CHECK_THAT(message("null"), Catch::Contains("expected a JSON object, got null"));
  CHECK_THAT(message("{"), Catch::Contains("not JSON"));
  CHECK_THAT(message(R"({"iteration": "2", "game": "kuhn"})"),
             Catch::Contains("\"iteration\" must be an integer"));
  CHECK_THAT(message(R"({"iteration": -5, "game": "kuhn"})"),
             Catch::Contains("\"iteration\" is -5, but the checkpoint is of iteration 2"));
  CHECK_THAT(message(R"({"iteration": 999, "game": "kuhn"})"), Catch::Contains("is 999"));
  CHECK_THAT(message(R"({"iteration": 2})"), Catch::Contains("\"game\" must be a string"));
  CHECK_THAT(message(R"({"iteration": 2, "game": "kuhn", "strategy_trained": 1})"),
             Catch::Contains("\"strategy_trained\" must be true or false"));
  CHECK_THAT(message(R"({"iteration": 2, "game": "kuhn", "world_size": 0})"),
             Catch::Contains("\"world_size\" must be a positive integer"));
}

}  // namespace
}  // namespace lcfr::training
