#include "io/agent_server.h"

#include "base/strings.h"
#include "io/agent_protocol.h"
#include "nlohmann/json.hpp"

namespace lcfr::io {

using engine::LostCities;
using play::Bot;
using play::CheckPlayerRules;
namespace {

// Reads one line (without its '\n') into `line`; a line longer than `max_bytes` is consumed to
// its end but not kept, and `too_long` says so. False at the end of the input.
bool ReadLine(std::istream& in, size_t max_bytes, std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  std::streambuf* buffer = in.rdbuf();
  bool any = false;
  for (int c = buffer->sbumpc(); c != std::char_traits<char>::eof(); c = buffer->sbumpc()) {
    any = true;
    if (c == '\n') return true;
    if (too_long) continue;
    if (line.size() == max_bytes) {
      too_long = true;
      line.clear();
      continue;
    }
    line.push_back(static_cast<char>(c));
  }
  return any;
}

}  // namespace

AgentServerResult ServeAgent(std::istream& in, std::ostream& out, std::ostream& log, Bot& player,
                             const AgentServerOptions& options) {
  return ServeAgent(
      in, out, log, [&player](const engine::Rules&) -> absl::StatusOr<Bot*> { return &player; },
      options);
}

AgentServerResult ServeAgent(std::istream& in, std::ostream& out, std::ostream& log,
                             const PlayerForRules& player_for, const AgentServerOptions& options) {
  AgentServerResult result;
  Rng rng(options.seed);
  bool warned = false;
  auto refuse = [&](const std::string& why) {
    ++result.errors;
    const std::string message = StrCat("line ", result.lines, ": ", why);
    // A message may quote bytes of the line that are not UTF-8: the dump replaces them rather
    // than throwing.
    out << nlohmann::json{{"error", message}}.dump(-1, ' ', false,
                                                   nlohmann::json::error_handler_t::replace)
        << std::endl;
    log << "lcfr agent: " << message << std::endl;
  };
  std::string line;
  bool too_long = false;
  while (ReadLine(in, kMaxProtocolLineBytes, line, too_long)) {
    ++result.lines;
    if (too_long) {
      refuse(StrCat("longer than ", kMaxProtocolLineBytes, " bytes (skipped)"));
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const absl::StatusOr<Observation> obs = ParseObservation(line, rng);
    if (!obs.ok()) {
      refuse(std::string(obs.status().message()));
      continue;
    }
    // The boundary where a line's rules meet a player sized for its own.
    const absl::StatusOr<play::Bot*> found = player_for(obs->rules);
    if (!found.ok()) {
      refuse(std::string(found.status().message()));
      continue;
    }
    play::Bot& player = **found;
    if (absl::Status fits = CheckPlayerRules(player, obs->rules); !fits.ok()) {
      refuse(std::string(fits.message()));
      continue;
    }
    const LostCities game(obs->rules);
    // The line's past, or none: a player never carries one line's game into the next.
    TellHistory(game, *obs, player);
    if (!options.missing_moves_note.empty() && !warned && !obs->has_moves &&
        !game.IsDeal(obs->state)) {
      warned = true;
      log << "[agent] line " << result.lines << " has no \"moves\": " << options.missing_moves_note
          << std::endl;
    }
    const int action = player.ActOnState(game, obs->state, rng);
    out << ActionToProtocol(game, obs->state, action) << std::endl;
    ++result.answered;
  }
  return result;
}

}  // namespace lcfr::io
