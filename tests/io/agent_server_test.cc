// The agent's serving loop (io/agent_server.h) with network players (play/policy_bot.h) over
// a test double of the networks' sizes: lines of every rule set against players of another.
// Torch-free, so this runs under the sanitizers too: a line whose rules differ from the model's
// once wrote the line's larger game into buffers sized for the model's.
#include "io/agent_server.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/strings.h"
#include "engine/lost_cities.h"
#include "engine/worlds.h"
#include "io/agent_protocol.h"
#include "play/bots.h"
#include "play/policy_bot.h"
#include "tests/engine/test_util.h"
#include "traversal/evaluators.h"

namespace lcfr::play {

using engine::LostCities;
using engine::Rules;
using engine::State;
namespace {

using engine::LostCities;
using engine::Rules;
using engine::State;

Rules Variant(int colors, int ranks, int min_rank, int hand_size) {
  Rules r;
  r.colors = colors;
  r.ranks = ranks;
  r.min_rank = min_rank;
  r.hand_size = hand_size;
  return r;
}

// The named variants, then a random valid rule set (tests/engine/test_util.h).
Rules PickRules(Rng& rng) {
  static const std::vector<Rules> named = {
      Rules{},                // classic
      Variant(6, 9, 2, 8),    // the purple edition
      Variant(4, 9, 2, 8),    // fewer colours
      Variant(5, 9, 2, 10),   // larger hands
      Variant(5, 10, 1, 8),   // more ranks
      Variant(6, 10, 1, 10),  // all of them larger
      Variant(3, 6, 2, 5),    // all of them smaller
  };
  const uint32_t pick = rng.Uniform(static_cast<uint32_t>(named.size() + 3));
  return pick < named.size() ? named[pick] : engine::testing::RandomRules(rng);
}

// Runs `body` in a child process; true when it aborted (SIGABRT) with `text` on its stderr.
bool AbortsWith(const std::function<void()>& body, const std::string& text) {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::signal(SIGABRT, SIG_DFL);  // not Catch's handler, which reports in the child too
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::close(pipe_fds[0]);
    body();
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string err;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) err.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  INFO("the child's stderr: " << err);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && err.find(text) != std::string::npos;
}

struct Line {
  Rules rules;
  State state;  // the true state: its mover's hand names the answer's cards
  std::string text;
};

// `count` protocol lines of mixed rules: positions of random games at random depths, a third of
// them with the game's moves.
std::vector<Line> MixedLines(int count, uint64_t seed) {
  Rng rng(seed);
  play::RandomBot mover;
  std::vector<Line> lines;
  while (static_cast<int>(lines.size()) < count) {
    const Rules rules = PickRules(rng);
    const LostCities game(rules);
    State s = game.Deal(rng);
    std::vector<engine::SeenMove> seen[2];
    const int positions = 1 + static_cast<int>(rng.Uniform(12));
    for (int k = 0; k < positions && !LostCities::IsTerminal(s); ++k) {
      const int steps = static_cast<int>(rng.Uniform(8));
      for (int i = 0; i < steps && !LostCities::IsTerminal(s); ++i) {
        const int a = mover.ActOnState(game, s, rng);
        for (int seat = 0; seat < 2; ++seat)
          seen[seat].push_back(engine::SeeMove(game, s, a, seat));
        game.ApplyUnchecked(s, a);
      }
      if (LostCities::IsTerminal(s)) break;
      const bool moves = rng.Uniform(3) == 0;
      lines.push_back({rules, s,
                       moves ? io::ObservationToProtocol(game, s, seen[s.player])
                             : io::ObservationToProtocol(game, s)});
    }
  }
  lines.resize(count);
  return lines;
}

// Serves `lines` to `player` and checks every answer: a legal action for the line's own position
// when the player can play its rules, else an error naming both rule sets.
void ServeAndCheck(play::Bot& player, const std::vector<Line>& lines) {
  std::string input;
  for (const Line& line : lines) input += line.text + "\n";
  std::istringstream in(input);
  std::ostringstream out, log;
  const io::AgentServerResult served =
      io::ServeAgent(in, out, log, player, io::AgentServerOptions{});
  CHECK(served.lines == static_cast<int64_t>(lines.size()));
  CHECK(served.answered + served.errors == served.lines);
  std::istringstream answers(out.str());
  std::string answer;
  int64_t i = 0, legal = 0, refused = 0;
  const std::optional<Rules> bound = player.BoundRules();
  while (std::getline(answers, answer)) {
    REQUIRE(i < static_cast<int64_t>(lines.size()));
    const Line& line = lines[i++];
    const LostCities game(line.rules);
    if (!bound.has_value() || *bound == line.rules) {
      const absl::StatusOr<int> action = io::ActionFromProtocol(game, line.state, answer);
      if (!action.ok()) FAIL(line.text << "\nanswered " << answer << ": " << action.status());
      ++legal;
    } else {
      INFO(line.text);
      CHECK_THAT(answer, Catch::StartsWith(StrCat("{\"error\":\"line ", i, ": ")));
      CHECK_THAT(answer, Catch::Contains(StrCat("(", engine::ToString(line.rules), ")")));
      CHECK_THAT(answer, Catch::Contains(StrCat("(", engine::ToString(*bound), ")")));
      ++refused;
    }
  }
  CHECK(i == static_cast<int64_t>(lines.size()));
  CHECK(served.answered == legal);
  CHECK(served.errors == refused);
  // Both kinds were served: the test can tell a refusal from an answer.
  if (bound.has_value()) {
    CHECK(legal > 100);
    CHECK(refused > 100);
  }
}

TEST_CASE("The agent serves 10,000 lines of mixed rules to network players of other rules",
          "[agent][rules]") {
  const std::vector<Line> lines = MixedLines(10000, 11);
  for (const Rules& rules : {Rules{}, Variant(6, 9, 2, 8)}) {
    INFO("the model's rules: " << engine::ToString(rules));
    const LostCities game(rules);
    // A network of the model's sizes: a request of any other size aborts (the staging's check).
    traversal::PseudoNetworkEvaluator network(game.EncodingSize(), game.num_actions(), 3);
    traversal::PolicyClient client = traversal::PolicyClient::Direct(&network);
    for (const bool greedy : {false, true}) {
      PolicyBot model(&client, PlayPolicy{PlayPolicy::Source::kCurrent, greedy}, game);
      ServeAndCheck(model, lines);
    }
  }
}

TEST_CASE("The agent answers every rule set with a scripted bot", "[agent][rules]") {
  const std::vector<Line> lines = MixedLines(2000, 12);
  auto bot = *play::MakeBot("heuristic-balanced");
  CHECK_FALSE(bot->BoundRules().has_value());
  ServeAndCheck(*bot, lines);
}

TEST_CASE("A network player refuses, at once, a game of other rules", "[agent][rules]") {
  const LostCities classic;
  const LostCities six(Variant(6, 9, 2, 8));
  traversal::PseudoNetworkEvaluator network(classic.EncodingSize(), classic.num_actions(), 3);
  traversal::PolicyClient client = traversal::PolicyClient::Direct(&network);
  PolicyBot model(&client, PlayPolicy{}, classic);
  REQUIRE(model.BoundRules() == classic.rules());
  CHECK(play::CheckPlayerRules(model, classic.rules()).ok());
  const absl::Status refused = play::CheckPlayerRules(model, six.rules());
  CHECK_THAT(std::string(refused.message()),
             Catch::Contains("colors=6") && Catch::Contains("colors=5") &&
                 Catch::Contains("it plays only the rules it was built for"));
  // Handed one anyway (a caller that skipped the check), it aborts before any buffer is written.
  const State s = six.DealFromSeed(1);
  Rng rng(1);
  CHECK(AbortsWith([&] { model.ActOnState(six, s, rng); }, "handed a game of rules (colors=6"));
}

TEST_CASE("An agent line's error names a non-UTF-8 byte without failing to answer", "[agent]") {
  auto bot = *play::MakeBot("random");
  std::istringstream in(std::string("{\"decision\":\"card\",\"hand\":[\"R\xff\"]}\n"));
  std::ostringstream out, log;
  const io::AgentServerResult served = io::ServeAgent(in, out, log, *bot, io::AgentServerOptions{});
  CHECK(served.errors == 1);
  CHECK_THAT(out.str(), Catch::StartsWith("{\"error\":\"line 1: "));
}

}  // namespace
}  // namespace lcfr::play
