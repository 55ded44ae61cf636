#include "training/compose.h"

#include "engine/strings.h"

namespace lcfr::training {

absl::StatusOr<Devices> ResolveDevices(const TrainConfig& config) {
  Devices devices;
  auto inference = inference::ResolveDevice(config.inference.device);
  if (!inference.ok()) {
    return absl::Status(inference.status().code(),
                        lcfr::StrCat("inference.device: ", inference.status().message()));
  }
  auto training = inference::ResolveDevice(config.training.device);
  if (!training.ok()) {
    return absl::Status(training.status().code(),
                        lcfr::StrCat("training.device: ", training.status().message()));
  }
  devices.inference = *inference;
  devices.training = *training;
  return devices;
}

}  // namespace lcfr::training
