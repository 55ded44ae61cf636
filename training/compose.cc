#include "training/compose.h"

#include "engine/check.h"
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

absl::StatusOr<Evaluators> MakeEvaluators(std::shared_ptr<const inference::ModelStore> store,
                                          const inference::InferenceConfig& config, int count) {
  Evaluators evaluators;
  for (int w = 0; w < count; ++w) {
    auto evaluator = inference::MakeBatchedEvaluator(store, config);
    if (!evaluator.ok()) {
      return absl::Status(evaluator.status().code(),
                          lcfr::StrCat("cannot build the evaluator of worker ", w, ": ",
                                       evaluator.status().message()));
    }
    evaluators.push_back(std::move(*evaluator));
  }
  return evaluators;
}

std::function<std::unique_ptr<traversal::Evaluator>(int worker)> HandOut(Evaluators& evaluators) {
  return [&evaluators](int worker) {
    LCFR_CHECK(worker >= 0 && static_cast<size_t>(worker) < evaluators.size());
    LCFR_CHECK(evaluators[worker] != nullptr)
        << "worker " << worker << "'s evaluator handed out twice";
    return std::move(evaluators[worker]);
  };
}

absl::StatusOr<std::unique_ptr<SearchPlayer>> MakeSearchPlayer(
    const engine::LostCities& game, const Blueprint& blueprint, const SearchConfig& config,
    std::shared_ptr<const inference::ModelStore> store,
    std::shared_ptr<const inference::ModelStore> rollout_store,
    std::shared_ptr<const inference::ModelStore> opponent_rollout_store,
    const inference::InferenceConfig& inference) {
  EvaluatorFactory factory, rollout_factory, opponent_factory;
  // Handed out to the player's workers in Create.
  Evaluators evaluators, rollout_evaluators, opponent_evaluators;
  // One evaluator per worker for `from`'s networks, handed out by `out` (none without a store).
  auto wire = [&config, &inference](std::shared_ptr<const inference::ModelStore> from,
                                    Evaluators& made, EvaluatorFactory& out) -> absl::Status {
    if (!from) return absl::OkStatus();
    absl::StatusOr<Evaluators> built = MakeEvaluators(std::move(from), inference, config.workers);
    if (!built.ok()) return built.status();
    made = *std::move(built);
    out = HandOut(made);
    return absl::OkStatus();
  };
  if (absl::Status s = wire(std::move(store), evaluators, factory); !s.ok()) return s;
  if (absl::Status s = wire(std::move(rollout_store), rollout_evaluators, rollout_factory);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          wire(std::move(opponent_rollout_store), opponent_evaluators, opponent_factory);
      !s.ok()) {
    return s;
  }
  return SearchPlayer::Create(game, blueprint, config, factory, rollout_factory, opponent_factory);
}

}  // namespace lcfr::training
