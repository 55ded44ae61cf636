// Reading a trained policy back: a checkpoint directory (networks.pt + config.yaml), or a run
// directory (its latest checkpoint). Torch-free header.
#ifndef LCFR_TRAINING_CHECKPOINT_H_
#define LCFR_TRAINING_CHECKPOINT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "inference/model_store.h"
#include "training/config.h"

namespace lcfr::training {

struct CheckpointPolicy {
  std::string directory;                         // the checkpoint directory actually read
  TrainConfig config;                            // the run's configuration (game, rules, network)
  std::shared_ptr<inference::ModelStore> store;  // its networks, published
};

// `path`: a checkpoint directory or a run directory. Errors name the file and the problem.
absl::StatusOr<CheckpointPolicy> LoadCheckpointPolicy(const std::string& path);

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_CHECKPOINT_H_
