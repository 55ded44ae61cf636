// What a policy network looks like, without libtorch: the MLP's configuration and the shape
// (game, input size, action count) a saved network must match.
#ifndef LCFR_INFERENCE_NETWORK_CONFIG_H_
#define LCFR_INFERENCE_NETWORK_CONFIG_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace lcfr::inference {

enum class Activation { kRelu, kTanh, kSilu };
std::string_view ActivationName(Activation activation);  // "relu", "tanh", "silu"
absl::StatusOr<Activation> ParseActivation(std::string_view name);

struct NetworkConfig {
  int hidden_width = 512;  // units per hidden layer (the seed's network: 512)
  int hidden_layers = 3;   // hidden layers (the seed's network: 3)
  Activation activation = Activation::kRelu;

  absl::Status Validate() const;  // errors name the field and the allowed range
};

// Everything a set of networks must agree on with the game it plays.
struct NetworkShape {
  std::string game;    // e.g. "lost-cities", "kuhn", "leduc"
  int input_size = 0;  // the game's EncodingSize()
  int num_actions = 0;
  NetworkConfig config;

  // "lost-cities: 618 -> 512x3 relu -> 31"
  std::string ToString() const;
  bool operator==(const NetworkShape& other) const;
};

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_NETWORK_CONFIG_H_
