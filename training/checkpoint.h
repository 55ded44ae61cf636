// Reading a trained policy back: a checkpoint directory (networks.pt + config.yaml), or a run
// directory (its latest checkpoint). Torch-free header.
#ifndef LCFR_TRAINING_CHECKPOINT_H_
#define LCFR_TRAINING_CHECKPOINT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "inference/model_store.h"
#include "play/bots.h"
#include "play/policy_bot.h"
#include "training/config.h"
#include "training/evaluation.h"
#include "traversal/evaluator.h"
#include "traversal/fiber_batcher.h"
#include "traversal/stats.h"

namespace lcfr::training {

struct CheckpointPolicy {
  std::string directory;                         // the checkpoint directory actually read
  TrainConfig config;                            // the run's configuration (game, rules, network)
  std::shared_ptr<inference::ModelStore> store;  // its networks, published
};

// `path`: a checkpoint directory or a run directory. Errors name the file and the problem.
absl::StatusOr<CheckpointPolicy> LoadCheckpointPolicy(const std::string& path);

// A networks file (`--model FILE`: a networks.pt, e.g. the shipped models/lost-cities.pt) and the
// configuration that trained it: FILE with .pt replaced by .yaml, else config.yaml beside it.
// Checked like a checkpoint's: the checksums beside it when there are some, the header's shape
// against the configuration's, every tensor's shape and finiteness.
absl::StatusOr<CheckpointPolicy> LoadModelPolicy(const std::string& file);

// A Lost Cities bot that plays a checkpoint's policy (play/play_policy.h; by default the
// strategy network's average strategy, sampled), one fp32 forward per decision on the CPU (for
// `lcfr agent` and `lcfr play`). Not thread-safe.
class CheckpointBot : public play::Bot {
 public:
  // Errors: the path holds no checkpoint, or one of another game.
  static absl::StatusOr<std::unique_ptr<CheckpointBot>> Load(const std::string& path,
                                                             play::PlayPolicy play = {});
  // The same from a loaded policy (LoadCheckpointPolicy, LoadModelPolicy).
  static absl::StatusOr<std::unique_ptr<CheckpointBot>> FromPolicy(CheckpointPolicy policy,
                                                                   play::PlayPolicy play = {});

  int Act(const engine::LostCities& game, const engine::View& view, Rng& rng) override {
    return player_->Act(game, view, rng);
  }
  std::string Name() const override { return directory_; }
  std::optional<engine::Rules> BoundRules() const override { return rules_; }
  const engine::Rules& rules() const { return rules_; }

 private:
  CheckpointBot() = default;
  std::string directory_;
  engine::Rules rules_;
  std::unique_ptr<traversal::Evaluator> evaluator_;
  traversal::PolicyClient client_;
  std::unique_ptr<play::PolicyBot> player_;
};

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_CHECKPOINT_H_
