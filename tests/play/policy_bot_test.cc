// play/policy_bot.h: a network player's probabilities are the distribution it plays from.
#include "play/policy_bot.h"

#include <catch2/catch.hpp>
#include <vector>

#include "engine/lost_cities.h"
#include "traversal/evaluators.h"
#include "traversal/fiber_batcher.h"

namespace lcfr::play {
namespace {

using engine::LostCities;
using engine::State;

TEST_CASE("A model player's Probability is the distribution it plays from", "[policy_bot]") {
  const LostCities game;
  traversal::PseudoNetworkEvaluator network(game.EncodingSize(), game.num_actions(), 7);
  traversal::PolicyClient client = traversal::PolicyClient::Direct(&network);
  State s = game.DealFromSeed(4);
  for (const bool greedy : {false, true}) {
    PolicyBot bot(&client, PlayPolicy{PlayPolicy::Source::kCurrent, greedy}, game);
    Rng rng(1);
    for (int step = 0; step < 20; ++step) {
      const uint32_t legal = game.LegalMask(s);
      double total = 0;
      for (int a = 0; a < game.num_actions(); ++a) {
        const double p = bot.Probability(game, s, a);
        if (!((legal >> a) & 1)) CHECK(p == 0.0);
        total += p;
      }
      CHECK(total == Approx(1.0));
      // Greedy play puts everything on the action it plays (no ties in these outputs); sampled
      // play has the policy's distribution.
      const int played = bot.ActOnState(game, s, rng);
      const std::vector<float> sampled(bot.probabilities().begin(), bot.probabilities().end());
      if (greedy) {
        CHECK(bot.Probability(game, s, played) == 1.0);
      } else {
        for (int a = 0; a < game.num_actions(); ++a) {
          CHECK(bot.Probability(game, s, a) == Approx(sampled[a]));
        }
      }
      game.ApplyUnchecked(s, played);
    }
  }
}

}  // namespace
}  // namespace lcfr::play
