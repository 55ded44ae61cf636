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
#include "engine/fields.h"

namespace lcfr::inference {

enum class Activation { kRelu, kTanh, kSilu };
inline constexpr engine::EnumName kActivationNames[] = {{"relu", 0}, {"tanh", 1}, {"silu", 2}};
std::string_view ActivationName(Activation activation);  // "relu", "tanh", "silu"
absl::StatusOr<Activation> ParseActivation(std::string_view name);

// Where forwards or training run. kAuto: CUDA when a device is visible (ResolveDevice in
// inference/batched_evaluator.h decides, at the composition root; configs never probe).
enum class Device { kCpu, kCuda, kAuto };
inline constexpr engine::EnumName kDeviceNames[] = {{"cpu", 0}, {"cuda", 1}, {"auto", 2}};
std::string_view DeviceName(Device device);  // "cpu", "cuda", "auto"
absl::StatusOr<Device> ParseDevice(std::string_view name);

// The default training run's network (configs/default.yaml); the seed's was 512x3.
struct NetworkConfig {
  int hidden_width = 128;  // units per hidden layer
  int hidden_layers = 2;   // hidden layers
  Activation activation = Activation::kRelu;

  absl::Status Validate() const;  // the field table's ranges; errors name the field
};

// NetworkConfig's field table (engine/fields.h).
std::span<const engine::Field<NetworkConfig>> NetworkConfigFields();

// Everything a set of networks must agree on with the game it plays.
struct NetworkShape {
  std::string game;          // e.g. "lost-cities", "kuhn", "leduc"
  int encoding_version = 0;  // the game's EncodingVersion()
  int input_size = 0;        // the game's EncodingSize()
  int num_actions = 0;
  NetworkConfig config;

  // "lost-cities (encoding 1): 618 -> 512x3 relu -> 31"
  std::string ToString() const;
  bool operator==(const NetworkShape& other) const;
};

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_NETWORK_CONFIG_H_
