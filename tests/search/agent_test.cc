// The agent's path into the search (io/ and search/, siblings: an executable of its own): a
// player told a game's moves through the agent protocol decides as the same player in the game.
#include <algorithm>
#include <atomic>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/card.h"
#include "engine/worlds.h"
#include "io/agent_protocol.h"
#include "search/match.h"
#include "search/player.h"
#include "tests/search/search_test_util.h"
#include "traversal/evaluators.h"

namespace lcfr::search {
namespace {

using engine::Card;
using engine::LostCities;
using engine::State;
using namespace testing;

TEST_CASE("Search told a game's moves through the agent protocol decides as in the game",
          "[search]") {
  // The agent's path (a protocol line with "moves", ParseObservation, TellHistory, a player that
  // sees one line at a time) against the match's (the true state, every move observed), for
  // opponent inference, the searcher at either seat.
  // One wager a color: the protocol names a wager by its color alone, so with more it may give
  // one the id of another of its color, and the worlds with a past are then the match's in
  // distribution but not draw for draw (the agent protocol's tests check the history itself).
  engine::Rules rules = ShortRules();
  rules.wagers = 1;
  const LostCities game(rules);
  Blueprint blueprint;
  blueprint.bot = "heuristic-balanced";
  SearchConfig inference;
  inference.rollouts = 16;
  inference.opponent_rollout_policy = "heuristic-cautious,heuristic-aggressive,random";
  inference.opponent_worlds = 16;
  inference.threshold = 0.5;
  {
    for (int seat = 0; seat < 2; ++seat) {
      INFO("the searcher at seat " << seat);
      auto in_game = Make(game, blueprint, inference);
      auto agent = Make(game, blueprint, inference);
      auto opponent = play::MakeBot("heuristic-cautious");
      REQUIRE(opponent.ok());
      State s = game.DealFromSeed(11 + seat);
      std::vector<engine::SeenMove> seen;  // the moves as the searcher saw them
      Rng rng(seat);
      int compared = 0;
      while (!LostCities::IsTerminal(s) && compared < 24) {
        int a = 0;
        if (s.player == seat) {
          Rng parse(compared);
          absl::StatusOr<io::Observation> obs =
              io::ParseObservation(io::ObservationToProtocol(game, s, seen), parse);
          REQUIRE(obs.ok());
          REQUIRE(obs->state.player == seat);
          io::TellHistory(game, *obs, *agent);
          Rng for_agent = rng;
          const int told = agent->ActOnState(game, obs->state, for_agent);
          a = in_game->ActOnState(game, s, rng);
          CHECK(told == a);
          const SearchDecision& d = in_game->last_decision();
          const SearchDecision& t = agent->last_decision();
          CHECK(t.mean == d.mean);
          CHECK(t.opponent_posterior == d.opponent_posterior);
          ++compared;
        } else {
          a = (*opponent)->ActOnState(game, s, rng);
        }
        in_game->Observe(game, s, a, seat);
        seen.push_back(engine::SeeMove(game, s, a, seat));
        game.ApplyUnchecked(s, a);
      }
      CHECK(compared == 24);
      // Every decision after the first was inferred, on the same evidence.
      CHECK(agent->report().inferred == in_game->report().inferred);
      CHECK(agent->report().inferred > 12);
      // The next line without its moves: the agent forgets the game, and infers nothing.
      while (!LostCities::IsTerminal(s) && s.player != seat) {
        game.ApplyUnchecked(s, (*opponent)->ActOnState(game, s, rng));
      }
      REQUIRE(!LostCities::IsTerminal(s));
      {
        Rng parse(99);
        absl::StatusOr<io::Observation> bare =
            io::ParseObservation(io::ObservationToProtocol(game, s), parse);
        REQUIRE(bare.ok());
        io::TellHistory(game, *bare, *agent);
        const int64_t inferred = agent->report().inferred;
        agent->ActOnState(game, bare->state, rng);
        CHECK(agent->report().inferred == inferred);
        // Nor without "decisions": a position under way at decision 0 has a past, unknown.
        std::string line = io::ObservationToProtocol(game, s);
        const size_t at = line.find(",\"decisions\":");
        REQUIRE(at != std::string::npos);
        line.erase(at, line.find_first_of(",}", at + 1) - at);
        absl::StatusOr<io::Observation> undated = io::ParseObservation(line, parse);
        REQUIRE(undated.ok());
        REQUIRE(undated->state.decisions == 0);
        io::TellHistory(game, *undated, *agent);
        agent->ActOnState(game, undated->state, rng);
        CHECK(agent->report().inferred == inferred);
      }
    }
  }
}

}  // namespace
}  // namespace lcfr::search
