// The agent's serving loop (io::ServeAgent, `lcfr agent`) driving players of fixed rules
// with lines of any rules: the input's first byte picks the player (a network player over a
// stand-in network of the classic, 6-colour, 4-colour, 10-card-hand or 10-rank rules, sampled or
// greedy, or a scripted bot), the rest is its input. Besides no crash and no sanitizer report
// (a line's game once overflowed buffers sized for the model's rules): every line gets exactly
// one answer, and a line that parses with rules other than the player's is refused naming both.
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/lost_cities.h"
#include "fuzz/fuzz_util.h"
#include "io/agent_protocol.h"
#include "io/agent_server.h"
#include "play/bots.h"
#include "play/policy_bot.h"
#include "traversal/evaluators.h"

namespace {

using lcfr::engine::Rules;

Rules Variant(int colors, int ranks, int min_rank, int hand_size) {
  Rules r;
  r.colors = colors;
  r.ranks = ranks;
  r.min_rank = min_rank;
  r.hand_size = hand_size;
  return r;
}

// A network player of `rules` over a stand-in network of those rules' sizes.
struct ModelPlayer {
  explicit ModelPlayer(const Rules& rules, bool greedy)
      : game(rules),
        network(game.EncodingSize(), game.num_actions(), 5),
        client(lcfr::traversal::PolicyClient::Direct(&network)),
        bot(&client, lcfr::play::PlayPolicy{lcfr::play::PlayPolicy::Source::kCurrent, greedy},
            game) {}
  lcfr::engine::LostCities game;
  lcfr::traversal::PseudoNetworkEvaluator network;
  lcfr::traversal::PolicyClient client;
  lcfr::play::PolicyBot bot;
};

lcfr::play::Bot& Player(uint8_t pick) {
  static const std::vector<Rules> rules = {Rules{}, Variant(6, 9, 2, 8), Variant(4, 9, 2, 8),
                                           Variant(5, 9, 2, 10), Variant(5, 10, 1, 8)};
  static std::vector<std::unique_ptr<ModelPlayer>> models = [] {
    std::vector<std::unique_ptr<ModelPlayer>> made;
    for (const bool greedy : {false, true}) {
      for (const Rules& r : rules) made.push_back(std::make_unique<ModelPlayer>(r, greedy));
    }
    return made;
  }();
  static std::unique_ptr<lcfr::play::Bot> scripted = *lcfr::play::MakeBot("heuristic-balanced");
  const size_t i = pick % (models.size() + 1);
  return i < models.size() ? models[i]->bot : *scripted;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lcfr::engine;
  using namespace lcfr::io;
  using lcfr::Rng;
  if (size == 0) return 0;
  lcfr::play::Bot& player = Player(data[0]);
  const std::string input(lcfr::fuzz::Text(data + 1, size - 1));
  std::istringstream in(input);
  std::ostringstream out, log;
  AgentServerOptions options;
  const AgentServerResult served = ServeAgent(in, out, log, player, options);
  lcfr::fuzz::Require(served.answered + served.errors <= served.lines,
                      "no more answers than lines");
  // The lines as the loop reads them: split at '\n', blank ones unanswered.
  std::vector<std::string> lines;
  for (size_t begin = 0; begin < input.size();) {
    const size_t end = std::min(input.find('\n', begin), input.size());
    lines.push_back(input.substr(begin, end - begin));
    begin = end + 1;
  }
  std::istringstream answers(out.str());
  std::string answer;
  const std::optional<Rules> bound = player.BoundRules();
  Rng rng(1);
  for (const std::string& line : lines) {
    if (line.size() <= kMaxProtocolLineBytes &&
        line.find_first_not_of(" \t\r") == std::string::npos) {
      continue;
    }
    lcfr::fuzz::Require(static_cast<bool>(std::getline(answers, answer)),
                        "every line gets an answer");
    if (line.size() > kMaxProtocolLineBytes) continue;
    const absl::StatusOr<Observation> obs = ParseObservation(line, rng);
    if (obs.ok() && bound.has_value() && !(obs->rules == *bound)) {
      lcfr::fuzz::Require(
          answer.find("are not the player's (" + ToString(*bound) + ")") != std::string::npos &&
              answer.find("(" + ToString(obs->rules) + ")") != std::string::npos,
          "a line of other rules is refused naming both rule sets");
    }
  }
  lcfr::fuzz::Require(!std::getline(answers, answer), "one answer a line, no more");
  return 0;
}
