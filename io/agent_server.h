// The serving loop of `lcfr agent` (docs/agent_protocol.md): one decision per line in, one action
// or one error per line out, for any play::Bot. Torch-free, so that the fuzz targets and the
// sanitizer suites drive the very loop the command runs, with a network player over a test
// double (play/policy_bot.h) as well as the scripted bots.
#ifndef LCFR_IO_AGENT_SERVER_H_
#define LCFR_IO_AGENT_SERVER_H_

#include <cstdint>
#include <functional>
#include <istream>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "engine/rules.h"
#include "play/bots.h"

namespace lcfr::io {

struct AgentServerOptions {
  uint64_t seed = 1;  // the player's randomness and the dealing of the cards a line leaves unseen
  // Written once to the log when a line of a game under way comes without "moves", for a player
  // that reads them (the search's opponent inference); "" = never.
  std::string missing_moves_note;
};

struct AgentServerResult {
  int64_t lines = 0;     // lines read, blank ones included
  int64_t answered = 0;  // lines answered with an action
  int64_t errors = 0;    // lines answered with {"error": ...}
};

// Serves `player` until `in` ends. Each non-blank line is parsed (ParseObservation); a line that
// does not parse, is longer than kMaxProtocolLineBytes, or whose rules the player cannot play
// (CheckPlayerRules: a network's player plays only the rules it was trained for) is answered
// with {"error":"line N: ..."} on `out` and the same message on `log` ("lcfr agent: line N: ..."),
// and the loop goes on. Otherwise the player is told the line's past (TellHistory) and its
// action is written. Every answer is flushed at once (the peer waits for it). Exceptions from the
// player pass through.
AgentServerResult ServeAgent(std::istream& in, std::ostream& out, std::ostream& log,
                             play::Bot& player, const AgentServerOptions& options);

// The player for a line's rules, or why there is none (the line is refused with that message):
// what serves players of several rule sets, as `lcfr agent` serves the shipped models
// (training/shipped_models.h). A player that cannot play them is refused as above.
using PlayerForRules = std::function<absl::StatusOr<play::Bot*>(const engine::Rules&)>;

// The same loop, each line served by the player `player_for` gives for its rules.
AgentServerResult ServeAgent(std::istream& in, std::ostream& out, std::ostream& log,
                             const PlayerForRules& player_for, const AgentServerOptions& options);

}  // namespace lcfr::io

#endif  // LCFR_IO_AGENT_SERVER_H_
