// The external-player protocol of `lcfr agent` (docs/agent_protocol.md): one JSON object per
// line describing a decision from the acting player's view, one JSON action per line back,
// named by card and kind rather than by hand slot.
#ifndef LCFR_IO_AGENT_PROTOCOL_H_
#define LCFR_IO_AGENT_PROTOCOL_H_

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/lost_cities.h"
#include "engine/worlds.h"
#include "play/bots.h"

namespace lcfr::io {

// A decision as the acting player sees it, turned into a full State: the acting player is
// seat 0 and the cards it cannot see (the opponent's unknown cards and the deck) are dealt at
// random from what is left, with `rng`. Every consumer that reads only the mover's
// information (bots, the encoder) then acts exactly as it would on the true state.
//
// With "moves" (the game's moves so far as the acting player saw them) the acting player sits
// at its seat in the real game instead (seat 1 when the opponent moved first: the engine's
// deals start with seat 0), and `moves` holds them, oldest first, one per decision, each card
// the id this state gives it (a wager, named by its color alone, one of its color's wagers
// where the move left it). They are checked against the position: a history that cannot lead
// to it (engine/worlds.h, SampleWorldHistory) is an error naming "moves".
struct Observation {
  engine::Rules rules;
  engine::State state;
  bool has_moves = false;  // the line gave "moves"
  std::vector<engine::SeenMove> moves;
};

// The longest protocol line accepted: a decision is under 2 KB.
inline constexpr size_t kMaxProtocolLineBytes = size_t{1} << 20;

// Parses one protocol line. Errors name the key that is wrong.
absl::StatusOr<Observation> ParseObservation(std::string_view line, Rng& rng);

// {"play":"R7"}, {"discard":"B*"}, {"draw":"deck"} or {"draw":"G"}.
std::string ActionToProtocol(const engine::LostCities& game, const engine::State& state,
                             int action);

// Inverse of ActionToProtocol for the state's player to move; errors say why the JSON names
// no legal action.
absl::StatusOr<int> ActionFromProtocol(const engine::LostCities& game, const engine::State& state,
                                       std::string_view json_text);

// Writes the observation of the player to move in `state` as one protocol line (used by tests
// and by programs that drive an external agent). The second form adds "moves": `seen`, the
// game's moves as that player saw them (engine::SeeMove), one per decision so far.
std::string ObservationToProtocol(const engine::LostCities& game, const engine::State& state);
std::string ObservationToProtocol(const engine::LostCities& game, const engine::State& state,
                                  std::span<const engine::SeenMove> seen);

// Hands `bot` the past of an observation, as a match would have told it move by move: it
// forgets any earlier game (Bot::Forget), then, when the line gave moves, is told each of them
// (Bot::Observe, for its seat) on a game that agrees with everything its seat saw
// (SampleWorldHistory; what a bot keeps of a move is what its seat sees, so any such game tells
// it the same). `obs` must come from ParseObservation, which checked the moves.
void TellHistory(const engine::LostCities& game, const Observation& obs, play::Bot& bot);

}  // namespace lcfr::io

#endif  // LCFR_IO_AGENT_PROTOCOL_H_
