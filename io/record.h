// Game records: a deal and the actions taken, as JSON
//   {"rules": {"colors": 5, ...}, "deck": ["R7", "B*", ...], "actions": [3, 16, ...]}
// "rules" uses the names of engine/rules.h (missing keys take classic values, unknown keys are
// errors); "deck" lists every card once, top = last element; actions are action ids.
#ifndef LCFR_IO_RECORD_H_
#define LCFR_IO_RECORD_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/lost_cities.h"

namespace lcfr::io {

struct GameRecord {
  engine::Rules rules;
  std::vector<engine::Card> deck;  // top = last element
  std::vector<int> actions;
};

// Parses a record; errors name the key or element that is wrong ("deck[12]: ...").
absl::StatusOr<GameRecord> ParseRecord(std::string_view json_text);
std::string RecordToJson(const GameRecord& record);

// Replays a record and returns its log: one JSON line per decision (step, player, decision
// kind, the mover's hand in slot order, legal actions, action taken, its name, both scores
// after it) and a final line (scores, winner, how the game ended, decisions, capped). An
// illegal action or an action after the end is an error naming the step; nothing is returned
// then, so a caller never prints half a log.
absl::StatusOr<std::string> ReplayLog(const GameRecord& record);

}  // namespace lcfr::io

#endif  // LCFR_IO_RECORD_H_
