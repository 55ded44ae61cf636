#include "inference/batched_evaluator.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/cuda.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#if defined(LCFR_TORCH_CUDA)
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "engine/check.h"
#include "engine/stream_cat.h"
#include "inference/networks.h"
#include "inference/policy_ops.h"
#include "inference/snapshot.h"

namespace lcfr::inference {
namespace {

using traversal::PolicyRequest;

#if defined(LCFR_TORCH_CUDA)
constexpr bool kCudaBuild = true;
#else
constexpr bool kCudaBuild = false;
#endif

// Rows bucket for CUDA graphs: the next power of two, at least 8, at most max_rows.
int64_t Bucket(int64_t rows, int64_t max_rows) {
  int64_t bucket = 8;
  while (bucket < rows) bucket *= 2;
  return std::min(bucket, max_rows);
}

bool CpuHasBf16() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

class BatchedEvaluator : public traversal::Evaluator {
 public:
  BatchedEvaluator(std::shared_ptr<const ModelStore> store, const InferenceConfig& config,
                   bool cuda)
      : store_(std::move(store)),
        config_(config),
        cuda_(cuda),
        features_(store_->shape().input_size),
        actions_(store_->shape().num_actions),
        width_(std::max(store_->shape().config.hidden_width, store_->shape().num_actions)) {
    c10::InferenceMode guard;
    if (!cuda_) at::set_num_threads(config.intra_op_threads);
    const bool auto_bf16 = config.precision == Precision::kAuto && !cuda_ && CpuHasBf16();
    bf16_min_rows_ = config.precision == Precision::kBf16 ? 1 : auto_bf16 ? kBf16MinRows : -1;
    const int64_t rows = static_cast<int64_t>(kNumNetworks) * config.max_rows;
    auto host = at::TensorOptions().dtype(at::kFloat).pinned_memory(cuda_);
    x_host_ = at::zeros({rows * features_}, host);
    mask_host_ = at::ones({rows * actions_}, host);
    probs_host_ = at::zeros({rows * actions_}, host);
    const auto device_options =
        at::TensorOptions().dtype(at::kFloat).device(cuda_ ? at::kCUDA : at::kCPU);
    for (auto& buffer : hidden_) buffer = at::zeros({rows * width_}, device_options);
    if (cuda_) {
#if defined(LCFR_TORCH_CUDA)
      stream_.emplace(c10::cuda::getStreamFromPool());
      x_device_ = at::zeros({rows * features_}, device_options);
      mask_device_ = at::ones({rows * actions_}, device_options);
#endif
    }
    // Every subset of networks as an index for index_select (used for the non-contiguous ones).
    for (uint32_t subset = 1; subset < subset_index_.size(); ++subset) {
      std::vector<int64_t> ids;
      for (int n = 0; n < kNumNetworks; ++n) {
        if (subset >> n & 1) ids.push_back(n);
      }
      subset_index_[subset] =
          at::tensor(ids, at::TensorOptions().dtype(at::kLong)).to(device_options.device());
    }
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
    if (bf16_min_rows_ > 0) {
      weights_bf16_.clear();
      biases_bf16_.clear();
      for (size_t l = 0; l < snapshot_->weights.size(); ++l) {
        weights_bf16_.push_back(snapshot_->weights[l].to(at::kBFloat16).to(Device()));
        biases_bf16_.push_back(snapshot_->biases[l].to(at::kBFloat16).to(Device()));
      }
    }
    if (!cuda_) {
      weights_ = snapshot_->weights;
      biases_ = snapshot_->biases;
      return;
    }
#if defined(LCFR_TORCH_CUDA)
    c10::cuda::CUDAStreamGuard stream_guard(*stream_);
    if (weights_.empty()) {
      // Allocated once: captured CUDA graphs keep pointing at these tensors.
      for (size_t l = 0; l < snapshot_->weights.size(); ++l) {
        weights_.push_back(at::empty_like(snapshot_->weights[l], at::kCUDA));
        biases_.push_back(at::empty_like(snapshot_->biases[l], at::kCUDA));
      }
    }
    for (size_t l = 0; l < weights_.size(); ++l) {
      weights_[l].copy_(snapshot_->weights[l], /*non_blocking=*/true);
      biases_[l].copy_(snapshot_->biases[l], /*non_blocking=*/true);
    }
    stream_->synchronize();
#endif
  }

  // The stacked weights (or biases) of the networks in `used` (ascending ids).
  at::Tensor Select(const at::Tensor& stacked, const std::vector<int>& used) const {
    const int64_t n = static_cast<int64_t>(used.size());
    if (n == kNumNetworks) return stacked;
    if (used.back() - used.front() + 1 == n) return stacked.narrow(0, used.front(), n);
    uint32_t subset = 0;
    for (int id : used) subset |= 1u << id;
    return stacked.index_select(0, subset_index_[subset]);
  }

  at::Device Device() const { return cuda_ ? at::Device(at::kCUDA) : at::Device(at::kCPU); }

  void Activate(at::Tensor& t) const {
    switch (snapshot_->activation) {
      case Activation::kRelu:
        t.relu_();
        break;
      case Activation::kTanh:
        t.tanh_();
        break;
      case Activation::kSilu:
        at::silu_(t);
        break;
    }
  }

  // The bfloat16 forward: same layout as Forward, fp32 result [blocks, rows, actions].
  at::Tensor ForwardBf16(const at::Tensor& x, const std::vector<int>& used, int64_t rows) {
    const int64_t blocks = static_cast<int64_t>(used.size());
    at::Tensor h =
        x.narrow(0, 0, blocks * rows * features_).view({blocks, rows, features_}).to(at::kBFloat16);
    for (size_t l = 0; l < weights_bf16_.size(); ++l) {
      h = at::baddbmm(Select(biases_bf16_[l], used), h, Select(weights_bf16_[l], used));
      if (l + 1 < weights_bf16_.size()) Activate(h);
    }
    return h.to(at::kFloat).contiguous();
  }

  // The networks' raw outputs for `blocks` x `rows` staged rows in `x` (on the compute device):
  // a view [blocks, rows, actions] of an activation buffer.
  at::Tensor Forward(const at::Tensor& x, const std::vector<int>& used, int64_t rows) {
    if (bf16_min_rows_ > 0 && static_cast<int64_t>(used.size()) * rows >= bf16_min_rows_) {
      return ForwardBf16(x, used, rows);
    }
    const int64_t blocks = static_cast<int64_t>(used.size());
    at::Tensor in = x.narrow(0, 0, blocks * rows * features_);
    int64_t in_width = features_;
    const size_t num_layers = weights_.size();
    for (size_t l = 0; l < num_layers; ++l) {
      const bool last = l + 1 == num_layers;
      const int64_t out_width = weights_[l].size(2);
      at::Tensor out = hidden_[l % 2].narrow(0, 0, blocks * rows * out_width);
      if (blocks == 1) {
        at::Tensor out2d = out.view({rows, out_width});
        at::addmm_out(out2d, biases_[l][used[0]][0], in.view({rows, in_width}),
                      weights_[l][used[0]]);
      } else {
        at::Tensor out3d = out.view({blocks, rows, out_width});
        at::baddbmm_out(out3d, Select(biases_[l], used).expand({blocks, rows, out_width}),
                        in.view({blocks, rows, in_width}), Select(weights_[l], used));
      }
      if (!last) Activate(out);
      in = out;
      in_width = out_width;
    }
    return in.view({blocks, rows, actions_});
  }

  void EvaluateChunk(std::span<const PolicyRequest> requests) {
    std::array<int64_t, kNumNetworks> counts{};
    std::array<traversal::Head, kNumNetworks> heads{};
    bool mixed = false;  // one network asked for two heads in this batch
    for (const PolicyRequest& r : requests) {
      LCFR_CHECK(r.network >= 0 && r.network < kNumNetworks)
          << "network id " << r.network << " out of range";
      LCFR_DCHECK_EQ(r.features.size(), static_cast<size_t>(features_));
      if (counts[r.network] == 0) heads[r.network] = r.head;
      mixed |= heads[r.network] != r.head;
      ++counts[r.network];
    }
    if (cuda_ && mixed) {
      // The device applies one head per network block: serve each head's requests in turn (the
      // traversals never mix heads on one network, so this does not happen there).
      for (int h = 0; h < traversal::kNumHeads; ++h) {
        std::vector<PolicyRequest> group;
        for (const PolicyRequest& r : requests) {
          if (static_cast<int>(r.head) == h) group.push_back(r);
        }
        if (!group.empty()) EvaluateChunk(group);
      }
      return;
    }
    std::vector<int> used;
    std::array<int64_t, kNumNetworks> block{};
    block_heads_.clear();
    for (int n = 0; n < kNumNetworks; ++n) {
      if (counts[n] == 0) continue;
      block[n] = static_cast<int64_t>(used.size());
      used.push_back(n);
      block_heads_.push_back(heads[n]);
    }
    const int64_t max_count = *std::max_element(counts.begin(), counts.end());
    const int64_t rows =
        cuda_ && config_.cuda_graphs ? Bucket(max_count, config_.max_rows) : max_count;

    // Stage: rows grouped by network, padded rows with zero features and all actions legal.
    float* x = x_host_.data_ptr<float>();
    float* mask = mask_host_.data_ptr<float>();
    for (int n : used) {
      const int64_t first_pad = block[n] * rows + counts[n];
      const int64_t pad = rows - counts[n];
      if (pad == 0) continue;
      std::memset(x + first_pad * features_, 0, sizeof(float) * pad * features_);
      std::fill(mask + first_pad * actions_, mask + (first_pad + pad) * actions_, 1.0f);
    }
    std::array<int64_t, kNumNetworks> fill{};
    positions_.resize(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
      const PolicyRequest& r = requests[i];
      const int64_t row = block[r.network] * rows + fill[r.network]++;
      positions_[i] = row;
      std::memcpy(x + row * features_, r.features.data(), sizeof(float) * features_);
      float* m = mask + row * actions_;
      for (int64_t a = 0; a < actions_; ++a) m[a] = (r.legal_mask >> a & 1) ? 1.0f : 0.0f;
    }

    if (!cuda_) {
      const at::Tensor out = Forward(x_host_, used, rows);
      const float* o = out.data_ptr<float>();
      for (size_t i = 0; i < requests.size(); ++i) {
        const PolicyRequest& r = requests[i];
        traversal::ApplyHead({o + positions_[i] * actions_, static_cast<size_t>(actions_)},
                             r.legal_mask, r.head, r.output);
      }
      return;
    }
#if defined(LCFR_TORCH_CUDA)
    ComputeOnDevice(used, rows);
    const float* p = probs_host_.data_ptr<float>();
    for (size_t i = 0; i < requests.size(); ++i) {
      std::memcpy(requests[i].output.data(), p + positions_[i] * actions_,
                  sizeof(float) * actions_);
    }
#endif
  }

#if defined(LCFR_TORCH_CUDA)
  at::Tensor DeviceCompute(const std::vector<int>& used, int64_t rows) {
    const int64_t blocks = static_cast<int64_t>(used.size());
    const at::Tensor outputs = Forward(x_device_, used, rows);
    const at::Tensor mask =
        mask_device_.narrow(0, 0, blocks * rows * actions_).view({blocks, rows, actions_});
    return PolicyFromOutputs(outputs, mask, block_heads_);
  }

  void ComputeOnDevice(const std::vector<int>& used, int64_t rows) {
    c10::cuda::CUDAStreamGuard stream_guard(*stream_);
    const int64_t blocks = static_cast<int64_t>(used.size());
    const int64_t n_x = blocks * rows * features_, n_mask = blocks * rows * actions_;
    x_device_.narrow(0, 0, n_x).copy_(x_host_.narrow(0, 0, n_x), /*non_blocking=*/true);
    mask_device_.narrow(0, 0, n_mask).copy_(mask_host_.narrow(0, 0, n_mask), true);
    at::Tensor probs;
    if (config_.cuda_graphs) {
      int64_t key = rows;
      for (size_t b = 0; b < used.size(); ++b) {
        key = (key * 8 + (used[b] + 1)) * traversal::kNumHeads + static_cast<int>(block_heads_[b]);
      }
      auto it = graphs_.find(key);
      if (it == graphs_.end()) {
        DeviceCompute(used, rows);  // warm-up before capture, as CUDA graphs require
        stream_->synchronize();
        Captured captured;
        captured.graph = std::make_unique<at::cuda::CUDAGraph>();
        captured.graph->capture_begin();
        captured.output = DeviceCompute(used, rows);
        captured.graph->capture_end();
        it = graphs_.emplace(key, std::move(captured)).first;
      }
      it->second.graph->replay();
      probs = it->second.output;
    } else {
      probs = DeviceCompute(used, rows);
    }
    probs_host_.narrow(0, 0, n_mask).copy_(probs.reshape({-1}), /*non_blocking=*/true);
    stream_->synchronize();
  }

  struct Captured {
    std::unique_ptr<at::cuda::CUDAGraph> graph;
    at::Tensor output;
  };
  std::optional<c10::cuda::CUDAStream> stream_;
  std::map<int64_t, Captured> graphs_;
  at::Tensor x_device_, mask_device_;
#endif

  std::shared_ptr<const ModelStore> store_;
  InferenceConfig config_;
  bool cuda_;
  int64_t features_, actions_, width_;
  std::shared_ptr<const ModelSnapshot> snapshot_;
  uint64_t version_ = 0;
  std::vector<at::Tensor> weights_, biases_;
  std::vector<at::Tensor> weights_bf16_, biases_bf16_;
  int64_t bf16_min_rows_ = -1;  // bf16 forward from this many rows on; -1: never
  at::Tensor x_host_, mask_host_, probs_host_;
  std::array<at::Tensor, 2> hidden_;
  std::array<at::Tensor, 1u << kNumNetworks> subset_index_;  // by bitmask of network ids
  std::vector<traversal::Head> block_heads_;                 // per block of the chunk being served
  std::vector<int64_t> positions_;
};

}  // namespace

absl::Status InferenceConfig::Validate() const {
  return engine::CheckRanges<InferenceConfig>(*this, InferenceConfigFields(), "");
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
