#include "inference/batched_evaluator.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/cuda.h>

#include <algorithm>
#include <vector>

#include "base/check.h"
#include "inference/backends.h"
#include "inference/networks.h"
#include "inference/snapshot.h"
#include "inference/staging.h"

namespace lcfr::inference {
namespace {

using traversal::PolicyRequest;

#if defined(LCFR_TORCH_CUDA)
constexpr bool kCudaBuild = true;
#else
constexpr bool kCudaBuild = false;
#endif

// Staging and a backend (inference/staging.h, inference/backends.h): requests in chunks of at
// most max_rows, staged, then served by the backend; the latest published weights taken
// between batches.
class BatchedEvaluator : public traversal::Evaluator {
 public:
  BatchedEvaluator(std::shared_ptr<const ModelStore> store, const InferenceConfig& config,
                   bool cuda)
      : store_(std::move(store)),
        config_(config),
        cuda_(cuda),
        staging_(store_->shape().input_size, store_->shape().num_actions, kNumNetworks,
                 config.max_rows, /*pinned=*/cuda) {
    c10::InferenceMode guard;
    if (!cuda_) at::set_num_threads(config.intra_op_threads);
    backend_ = MakeBackend(config, cuda, store_->shape());
    Refresh();
  }

  void Evaluate(std::span<const PolicyRequest> requests) override {
    c10::InferenceMode guard;
    if (!cuda_) {
      // libtorch's thread count is per calling thread for OpenMP: set it on each worker once.
      thread_local int configured = -1;
      if (configured != config_.intra_op_threads) {
        at::set_num_threads(config_.intra_op_threads);
        configured = config_.intra_op_threads;
      }
    }
    Refresh();
    for (size_t begin = 0; begin < requests.size(); begin += config_.max_rows) {
      const size_t count = std::min<size_t>(config_.max_rows, requests.size() - begin);
      EvaluateChunk(requests.subspan(begin, count));
    }
  }

 private:
  // Switches to the latest published weights, between batches only.
  void Refresh() {
    if (store_->version() == version_) return;
    snapshot_ = store_->Latest();
    version_ = snapshot_->version;
    backend_->Refresh(*snapshot_);
  }

  void EvaluateChunk(std::span<const PolicyRequest> requests) {
    const StagedChunk& chunk =
        staging_.Stage(requests, [this](int64_t rows) { return backend_->BlockRows(rows); });
    if (chunk.mixed_heads && !backend_->MixedHeads()) {
      // Serve each head's requests in turn (the traversals never mix heads on one network, so
      // this does not happen there).
      for (int h = 0; h < traversal::kNumHeads; ++h) {
        std::vector<PolicyRequest> group;
        for (const PolicyRequest& r : requests) {
          if (static_cast<int>(r.head) == h) group.push_back(r);
        }
        if (!group.empty()) EvaluateChunk(group);
      }
      return;
    }
    backend_->Compute(staging_, requests);
  }

  std::shared_ptr<const ModelStore> store_;
  InferenceConfig config_;
  bool cuda_;
  Staging staging_;
  std::unique_ptr<Backend> backend_;
  std::shared_ptr<const ModelSnapshot> snapshot_;
  uint64_t version_ = 0;
};

}  // namespace

absl::Status InferenceConfig::Validate() const {
  return CheckRanges<InferenceConfig>(*this, InferenceConfigFields(), "");
}

absl::StatusOr<Device> ResolveDevice(Device device) {
  if (device == Device::kCpu) return Device::kCpu;
  const bool available = kCudaBuild && torch::cuda::is_available();
  if (device == Device::kAuto) return available ? Device::kCuda : Device::kCpu;
  if (!kCudaBuild) {
    return absl::FailedPreconditionError(
        "device 'cuda' requested, but this build's libtorch has no CUDA support "
        "(use device cpu or auto, or build against a CUDA libtorch)");
  }
  if (!available) {
    return absl::FailedPreconditionError(
        "device 'cuda' requested, but no CUDA device is visible (torch::cuda::device_count() "
        "is 0); use device cpu or auto");
  }
  return Device::kCuda;
}

absl::StatusOr<std::unique_ptr<traversal::Evaluator>> MakeBatchedEvaluator(
    std::shared_ptr<const ModelStore> store, const InferenceConfig& config) {
  if (absl::Status status = config.Validate(); !status.ok()) return status;
  const absl::StatusOr<Device> device = ResolveDevice(config.device);
  if (!device.ok()) return device.status();
  LCFR_CHECK(store != nullptr);
  return std::unique_ptr<traversal::Evaluator>(
      new BatchedEvaluator(std::move(store), config, *device == Device::kCuda));
}

}  // namespace lcfr::inference
