// What a policy network looks like, without libtorch: the MLP's configuration (YAML section
// `network`) and the shape (game, input size, action count) a saved network must match; and the
// device names that inference and training share.
#ifndef LCFR_INFERENCE_NETWORK_CONFIG_H_
#define LCFR_INFERENCE_NETWORK_CONFIG_H_

#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/fields.h"

namespace lcfr::inference {

enum class Activation { kRelu, kTanh, kSilu };
inline constexpr EnumName kActivationNames[] = {{"relu", 0}, {"tanh", 1}, {"silu", 2}};
std::string_view ActivationName(Activation activation);  // "relu", "tanh", "silu"
absl::StatusOr<Activation> ParseActivation(std::string_view name);

// Where forwards or training run. kAuto: CUDA when a device is visible (ResolveDevice in
// inference/batched_evaluator.h decides, at the composition root; configs never probe).
enum class Device { kCpu, kCuda, kAuto };
inline constexpr EnumName kDeviceNames[] = {{"cpu", 0}, {"cuda", 1}, {"auto", 2}};
std::string_view DeviceName(Device device);  // "cpu", "cuda", "auto"
absl::StatusOr<Device> ParseDevice(std::string_view name);

// The network architectures (inference/networks.h): kMlp, the plain MLP over the encoding (every
// game); kCards, Lost Cities' colour-shared network with outputs bound to what an action is
// (inference/cards_net.h).
enum class Architecture { kMlp, kCards };
inline constexpr EnumName kArchitectureNames[] = {{"mlp", 0}, {"cards", 1}};
std::string_view ArchitectureName(Architecture architecture);  // "mlp", "cards"

// A network of the given architecture and size. The bare default is the 128x2 MLP; the default
// training run (TrainConfig, configs/default.yaml) uses the cards architecture.
struct NetworkConfig {
  Architecture architecture = Architecture::kMlp;
  int hidden_width = 128;  // units per hidden layer
  int hidden_layers = 2;   // hidden layers (cards: of the colour encoder)
  Activation activation = Activation::kRelu;

  absl::Status Validate() const;  // the field table's ranges; errors name the field
};

// NetworkConfig's field table (base/fields.h).
std::span<const Field<NetworkConfig>> NetworkConfigFields();

// The Lost Cities rule dimensions the cards network reads its encoding by (engine/lost_cities.h's
// layout); all 0 for the MLP.
struct CardsDims {
  int colors = 0;
  int ranks = 0;
  int wagers = 0;
  int min_rank = 0;
  int hand_size = 0;
  bool operator==(const CardsDims&) const = default;
};

// Everything a set of networks must agree on with the game it plays.
struct NetworkShape {
  std::string game;          // e.g. "lost-cities", "kuhn", "leduc"
  int encoding_version = 0;  // the game's EncodingVersion()
  int input_size = 0;        // the game's EncodingSize()
  int num_actions = 0;
  NetworkConfig config;
  CardsDims cards;  // architecture cards only

  // "lost-cities (encoding 1): 618 -> mlp 512x3 relu -> 31"
  std::string ToString() const;
  bool operator==(const NetworkShape& other) const;
};

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_NETWORK_CONFIG_H_
