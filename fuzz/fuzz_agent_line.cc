// An agent-protocol line (lcfr agent): a decision parsed into a state, then every legal action
// written and read back; and the line read as an action for a fixed state.
#include <string>

#include "base/rng.h"
#include "engine/lost_cities.h"
#include "engine/worlds.h"
#include "fuzz/fuzz_util.h"
#include "io/agent_protocol.h"
#include "play/bots.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lcfr::engine;
  using namespace lcfr::io;
  using lcfr::Rng;
  const std::string_view line = lcfr::fuzz::Text(data, size);
  Rng rng(1);
  const auto obs = ParseObservation(line, rng);
  if (obs.ok()) {
    const LostCities game(obs->rules);
    const auto legal = game.LegalMask(obs->state);
    lcfr::fuzz::Require(legal != 0, "a parsed decision has a legal action");
    for (int a = 0; a < game.num_actions(); ++a) {
      if (!(legal >> a & 1)) continue;
      const auto back = ActionFromProtocol(game, obs->state, ActionToProtocol(game, obs->state, a));
      lcfr::fuzz::Require(back.ok() && *back == a, "legal actions round-trip the protocol");
    }
    if (obs->has_moves) {
      // Moves that parsed lead to the position whatever game is drawn from them (the search
      // draws many), and a player can be told them.
      for (uint64_t draw = 1; draw <= 3; ++draw) {
        Rng any(draw);
        lcfr::fuzz::Require(SampleWorldHistory(game, obs->state, obs->moves, any).ok(),
                            "parsed moves lead to the position in any game drawn");
      }
      lcfr::play::RandomBot player;
      TellHistory(game, *obs, player);
    }
  }
  static const LostCities classic;
  static const State dealt = [] {
    Rng deal(7);
    return classic.Deal(deal);
  }();
  (void)ActionFromProtocol(classic, dealt, line);
  return 0;
}
