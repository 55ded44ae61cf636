// Small networks for a game's encoding and actions (16 wide, one hidden layer), for the tests
// that play a real network through the fused evaluator (evaluation, the search on a device).
#ifndef LCFR_TESTS_TRAINING_GAME_NETWORKS_H_
#define LCFR_TESTS_TRAINING_GAME_NETWORKS_H_

#include <cstdint>

#include "inference/networks.h"

namespace lcfr::training::testing {

inference::NetworkSet GameNetworks(const auto& game, uint64_t seed) {
  inference::NetworkShape shape;
  shape.game = "test";
  shape.encoding_version = game.EncodingVersion();
  shape.input_size = game.EncodingSize();
  shape.num_actions = game.num_actions();
  shape.config.hidden_width = 16;
  shape.config.hidden_layers = 1;
  return inference::NetworkSet::Create(shape, seed);
}

}  // namespace lcfr::training::testing

#endif  // LCFR_TESTS_TRAINING_GAME_NETWORKS_H_
