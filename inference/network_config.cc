#include "inference/network_config.h"

#include "base/stream_cat.h"

namespace lcfr::inference {

namespace {

constexpr Field<NetworkConfig> kNetworkFields[] = {
    Choice<&NetworkConfig::architecture>(
        "architecture", kArchitectureNames,
        "mlp (any game) | cards (Lost Cities: colour-shared, outputs bound to cards)"),
    Number("hidden_width", &NetworkConfig::hidden_width, 1, 65536, "units per hidden layer"),
    Number("hidden_layers", &NetworkConfig::hidden_layers, 0, 64, "hidden layers"),
    Choice<&NetworkConfig::activation>("activation", kActivationNames,
                                       "activation of the hidden layers"),
};

}  // namespace

std::string_view ArchitectureName(Architecture architecture) {
  return NameOf(kArchitectureNames, static_cast<int>(architecture));
}

std::string_view ActivationName(Activation activation) {
  return NameOf(kActivationNames, static_cast<int>(activation));
}

absl::StatusOr<Activation> ParseActivation(std::string_view name) {
  return ParseEnum<Activation>(kActivationNames, name, "activation");
}

std::string_view DeviceName(Device device) {
  return NameOf(kDeviceNames, static_cast<int>(device));
}

absl::StatusOr<Device> ParseDevice(std::string_view name) {
  return ParseEnum<Device>(kDeviceNames, name, "device");
}

std::span<const Field<NetworkConfig>> NetworkConfigFields() { return kNetworkFields; }

absl::Status NetworkConfig::Validate() const {
  return CheckRanges<NetworkConfig>(*this, kNetworkFields, "");
}

std::string NetworkShape::ToString() const {
  return lcfr::StreamCat(game, " (encoding ", encoding_version, "): ", input_size, " -> ",
                         ArchitectureName(config.architecture), " ", config.hidden_width, "x",
                         config.hidden_layers, " ", ActivationName(config.activation), " -> ",
                         num_actions);
}

bool NetworkShape::operator==(const NetworkShape& other) const {
  return game == other.game && encoding_version == other.encoding_version &&
         input_size == other.input_size && num_actions == other.num_actions &&
         config.hidden_width == other.config.hidden_width &&
         config.hidden_layers == other.config.hidden_layers &&
         config.activation == other.config.activation &&
         config.architecture == other.config.architecture && cards == other.cards;
}

}  // namespace lcfr::inference
