#include "inference/network_config.h"

#include "engine/stream_cat.h"

namespace lcfr::inference {

std::string_view ActivationName(Activation activation) {
  switch (activation) {
    case Activation::kRelu:
      return "relu";
    case Activation::kTanh:
      return "tanh";
    case Activation::kSilu:
      return "silu";
  }
  return "?";
}

absl::StatusOr<Activation> ParseActivation(std::string_view name) {
  for (Activation a : {Activation::kRelu, Activation::kTanh, Activation::kSilu}) {
    if (name == ActivationName(a)) return a;
  }
  return absl::InvalidArgumentError(
      lcfr::StreamCat("unknown activation '", name, "' (expected relu, tanh or silu)"));
}

absl::Status NetworkConfig::Validate() const {
  if (hidden_width < 1 || hidden_width > 65536) {
    return absl::InvalidArgumentError(
        lcfr::StreamCat("hidden_width = ", hidden_width, ": must be in [1, 65536]"));
  }
  if (hidden_layers < 0 || hidden_layers > 64) {
    return absl::InvalidArgumentError(
        lcfr::StreamCat("hidden_layers = ", hidden_layers, ": must be in [0, 64]"));
  }
  return absl::OkStatus();
}

std::string NetworkShape::ToString() const {
  return lcfr::StreamCat(game, ": ", input_size, " -> ", config.hidden_width, "x",
                         config.hidden_layers, " ", ActivationName(config.activation), " -> ",
                         num_actions);
}

bool NetworkShape::operator==(const NetworkShape& other) const {
  return game == other.game && input_size == other.input_size && num_actions == other.num_actions &&
         config.hidden_width == other.config.hidden_width &&
         config.hidden_layers == other.config.hidden_layers &&
         config.activation == other.config.activation;
}

}  // namespace lcfr::inference
