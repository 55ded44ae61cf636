#include "training/compose.h"

#include <algorithm>

#include "base/check.h"
#include "base/files.h"
#include "base/strings.h"
#include "traversal/evaluator.h"
#include "traversal/fiber_batcher.h"

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

traversal::EvaluatorFactory HandOut(Evaluators& evaluators) {
  return [&evaluators](int worker) {
    LCFR_CHECK(worker >= 0 && static_cast<size_t>(worker) < evaluators.size());
    LCFR_CHECK(evaluators[worker] != nullptr)
        << "worker " << worker << "'s evaluator handed out twice";
    return std::move(evaluators[worker]);
  };
}

inference::InferenceConfig ForSearch(const inference::InferenceConfig& inference,
                                     const search::SearchConfig& config) {
  inference::InferenceConfig capped = inference;
  capped.max_rows = std::min(inference.max_rows, config.width);
  return capped;
}

int64_t EstimateSearchBytes(const search::SearchConfig& config, int players,
                            std::span<const inference::ModelStore* const> models) {
  const int64_t width = config.width;
  const int batchers = models.size() > 1 ? 2 : 1;  // a rollout model runs on a batcher of its own
  int64_t per_worker = batchers * width * static_cast<int64_t>(traversal::StackBytesForDepth(64));
  for (const inference::ModelStore* model : models) {
    const int64_t row_bytes = static_cast<int64_t>(sizeof(float)) *
                              (model->shape().input_size + model->shape().num_actions);
    per_worker += traversal::kMaxNetworks * width * row_bytes + model->parameter_bytes();
  }
  // The rows a rollout encodes sit on its fiber's stack; the players' states, worlds and means
  // are small beside these.
  return static_cast<int64_t>(players) * config.workers * per_worker;
}

absl::Status CheckSearchMemory(int64_t bytes, const std::string& flags) {
  const std::optional<int64_t> available = lcfr::AvailableMemoryBytes();
  if (!available.has_value() || bytes <= *available) return absl::OkStatus();
  constexpr double kMiB = 1 << 20;
  return absl::ResourceExhaustedError(lcfr::StrCat(
      "the search would hold about ", static_cast<int64_t>(static_cast<double>(bytes) / kMiB),
      " MiB (fiber stacks and evaluators of every worker), more than the ",
      static_cast<int64_t>(static_cast<double>(*available) / kMiB),
      " MiB of memory available: lower ", flags));
}

absl::StatusOr<std::unique_ptr<search::SearchPlayer>> MakeSearchPlayer(
    const engine::LostCities& game, const search::Blueprint& blueprint,
    const search::SearchConfig& config, std::shared_ptr<const inference::ModelStore> store,
    std::shared_ptr<const inference::ModelStore> rollout_store,
    const inference::InferenceConfig& inference) {
  std::vector<const inference::ModelStore*> models;
  for (const auto* s : {&store, &rollout_store}) {
    if (*s) models.push_back(s->get());
  }
  if (absl::Status fits =
          CheckSearchMemory(EstimateSearchBytes(config, 1, models), "--workers or --search-width");
      !fits.ok()) {
    return fits;
  }
  // One evaluator per worker for `from`'s networks, handed out by `out` (none without a store);
  // the player takes them in Create.
  const inference::InferenceConfig search_inference = ForSearch(inference, config);
  Evaluators evaluators, rollout_evaluators;
  traversal::EvaluatorFactory factory, rollout_factory;
  auto wire = [&config, &search_inference](std::shared_ptr<const inference::ModelStore> from,
                                           Evaluators& made,
                                           traversal::EvaluatorFactory& out) -> absl::Status {
    if (!from) return absl::OkStatus();
    absl::StatusOr<Evaluators> built =
        MakeEvaluators(std::move(from), search_inference, config.workers);
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
  return search::SearchPlayer::Create(game, blueprint, config, factory, rollout_factory);
}

}  // namespace lcfr::training
