// The external-player protocol of `lcfr agent` (docs/agent_protocol.md): one JSON object per
// line describing a decision from the acting player's view, one JSON action per line back,
// named by card and kind rather than by hand slot.
#ifndef LCFR_ENGINE_AGENT_PROTOCOL_H_
#define LCFR_ENGINE_AGENT_PROTOCOL_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/lost_cities.h"

namespace lcfr::engine {

// A decision as the acting player sees it, turned into a full State: the acting player is
// seat 0 and the cards it cannot see (the opponent's unknown cards and the deck) are dealt at
// random from what is left, with `rng`. Every consumer that reads only the mover's
// information (bots, the encoder) then acts exactly as it would on the true state.
struct Observation {
  Rules rules;
  State state;
};

// The longest protocol line accepted: a decision is under 2 KB.
inline constexpr size_t kMaxProtocolLineBytes = size_t{1} << 20;

// Parses one protocol line. Errors name the key that is wrong.
absl::StatusOr<Observation> ParseObservation(std::string_view line, Rng& rng);

// {"play":"R7"}, {"discard":"B*"}, {"draw":"deck"} or {"draw":"G"}.
std::string ActionToProtocol(const LostCities& game, const State& state, int action);

// Inverse of ActionToProtocol for the state's player to move; errors say why the JSON names
// no legal action.
absl::StatusOr<int> ActionFromProtocol(const LostCities& game, const State& state,
                                       std::string_view json_text);

// Writes the observation of the player to move in `state` as one protocol line (used by tests
// and by programs that drive an external agent).
std::string ObservationToProtocol(const LostCities& game, const State& state);

}  // namespace lcfr::engine

#endif  // LCFR_ENGINE_AGENT_PROTOCOL_H_
