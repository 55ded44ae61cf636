#include "inference/backends.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

#if defined(LCFR_TORCH_CUDA)
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "base/check.h"
#include "inference/cards_net.h"
#include "inference/policy_ops.h"
#include "traversal/regret_matching.h"

namespace lcfr::inference {

bool CpuHasBf16() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

// ---- Forwards ---------------------------------------------------------------------------

StackedForward::StackedForward(at::Device device, const NetworkShape& shape)
    : device_(device), features_(shape.input_size), actions_(shape.num_actions) {
  // Every subset of networks as an index for index_select (used for the non-contiguous ones).
  for (uint32_t subset = 1; subset < subset_index_.size(); ++subset) {
    std::vector<int64_t> ids;
    for (int n = 0; n < kNumNetworks; ++n) {
      if (subset >> n & 1) ids.push_back(n);
    }
    subset_index_[subset] = at::tensor(ids, at::TensorOptions().dtype(at::kLong)).to(device);
  }
}

at::Tensor StackedForward::Select(const at::Tensor& stacked, const std::vector<int>& used) const {
  const int64_t n = static_cast<int64_t>(used.size());
  if (n == kNumNetworks) return stacked;
  if (used.back() - used.front() + 1 == n) return stacked.narrow(0, used.front(), n);
  uint32_t subset = 0;
  for (int id : used) subset |= 1u << id;
  return stacked.index_select(0, subset_index_[subset]);
}

void StackedForward::Activate(at::Tensor& t) const {
  switch (activation_) {
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

void StackedForward::CopyWeights(const ModelSnapshot& snapshot, at::ScalarType dtype,
                                 std::vector<at::Tensor>& weights,
                                 std::vector<at::Tensor>& biases) {
  activation_ = snapshot.activation;
  if (weights.empty()) {
    const auto options = at::TensorOptions().dtype(dtype).device(device_);
    for (size_t l = 0; l < snapshot.weights.size(); ++l) {
      weights.push_back(at::empty(snapshot.weights[l].sizes(), options));
      biases.push_back(at::empty(snapshot.biases[l].sizes(), options));
    }
  }
  for (size_t l = 0; l < weights.size(); ++l) {
    weights[l].copy_(snapshot.weights[l], /*non_blocking=*/true);
    biases[l].copy_(snapshot.biases[l], /*non_blocking=*/true);
  }
}

Fp32Forward::Fp32Forward(at::Device device, const NetworkShape& shape, int max_rows)
    : StackedForward(device, shape) {
  const int64_t width = std::max(shape.config.hidden_width, shape.num_actions);
  const int64_t rows = static_cast<int64_t>(kNumNetworks) * max_rows;
  const auto options = at::TensorOptions().dtype(at::kFloat).device(device);
  for (at::Tensor& buffer : hidden_) buffer = at::zeros({rows * width}, options);
}

void StackedForward::TakeFp32(const ModelSnapshot& snapshot, std::vector<at::Tensor>& weights,
                              std::vector<at::Tensor>& biases) {
  if (device_.is_cpu()) {
    // The snapshot's own tensors: published versions are immutable.
    activation_ = snapshot.activation;
    weights = snapshot.weights;
    biases = snapshot.biases;
    return;
  }
  CopyWeights(snapshot, at::kFloat, weights, biases);
}

void Fp32Forward::Refresh(const ModelSnapshot& snapshot) { TakeFp32(snapshot, weights_, biases_); }

at::Tensor Fp32Forward::Run(const at::Tensor& x, const std::vector<int>& used, int64_t rows) {
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
      at::addmm_out(out2d, biases_[l][used[0]][0], in.view({rows, in_width}), weights_[l][used[0]]);
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

void CardsStackedForward::Refresh(const ModelSnapshot& snapshot) {
  TakeFp32(snapshot, weights_, biases_);
}

at::Tensor CardsStackedForward::Run(const at::Tensor& x, const std::vector<int>& used,
                                    int64_t rows) {
  const int64_t blocks = static_cast<int64_t>(used.size());
  const at::Tensor in = x.narrow(0, 0, blocks * rows * features_).view({blocks, rows, features_});
  std::vector<at::Tensor> weights, biases;
  for (size_t l = 0; l < weights_.size(); ++l) {
    weights.push_back(Select(weights_[l], used));
    biases.push_back(Select(biases_[l], used));
  }
  return CardsForward(in, weights, biases, shape_, activation_, constants_).contiguous();
}

CardsKernelForward::CardsKernelForward(const NetworkShape& shape, int max_rows, CardsKernelIsa isa)
    : shape_(shape),
      kernel_(MakeCardsKernelSpec(shape), shape, kNumNetworks, isa),
      out_(at::zeros({static_cast<int64_t>(kNumNetworks) * max_rows * shape.num_actions})) {}

void CardsKernelForward::Refresh(const ModelSnapshot& snapshot) {
  for (int n = 0; n < kNumNetworks; ++n) {
    std::vector<const float*> weights, biases;
    for (size_t l = 0; l < snapshot.weights.size(); ++l) {
      LCFR_CHECK(snapshot.weights[l].is_contiguous() && snapshot.weights[l].is_cpu());
      weights.push_back(snapshot.weights[l].data_ptr<float>() +
                        n * snapshot.weights[l].size(1) * snapshot.weights[l].size(2));
      biases.push_back(snapshot.biases[l].data_ptr<float>() + n * snapshot.biases[l].size(2));
    }
    kernel_.SetWeights(n, weights, biases, snapshot.activation);
  }
}

at::Tensor CardsKernelForward::Run(const at::Tensor& x, const std::vector<int>& used,
                                   int64_t rows) {
  return RunRows(x, nullptr, used, rows);
}

at::Tensor CardsKernelForward::RunLegal(const at::Tensor& x, const at::Tensor& mask,
                                        const std::vector<int>& used, int64_t rows) {
  LCFR_CHECK(mask.is_contiguous() && mask.is_cpu() && mask.scalar_type() == at::kFloat);
  LCFR_CHECK(mask.numel() >= static_cast<int64_t>(used.size()) * rows * shape_.num_actions);
  return RunRows(x, mask.data_ptr<float>(), used, rows);
}

at::Tensor CardsKernelForward::RunRows(const at::Tensor& x, const float* mask,
                                       const std::vector<int>& used, int64_t rows) {
  const int64_t blocks = static_cast<int64_t>(used.size());
  const int64_t features = shape_.input_size, actions = shape_.num_actions;
  LCFR_CHECK(blocks * rows * actions <= out_.numel());
  const float* in = x.data_ptr<float>();
  float* out = out_.data_ptr<float>();
  for (int64_t b = 0; b < blocks; ++b) {
    kernel_.Run(used[static_cast<size_t>(b)], in + b * rows * features, rows,
                out + b * rows * actions, mask == nullptr ? nullptr : mask + b * rows * actions);
  }
  return out_.narrow(0, 0, blocks * rows * actions).view({blocks, rows, actions});
}

Bf16Forward::Bf16Forward(at::Device device, const NetworkShape& shape)
    : StackedForward(device, shape) {}

void Bf16Forward::Refresh(const ModelSnapshot& snapshot) {
  CopyWeights(snapshot, at::kBFloat16, weights_, biases_);
}

at::Tensor Bf16Forward::Run(const at::Tensor& x, const std::vector<int>& used, int64_t rows) {
  const int64_t blocks = static_cast<int64_t>(used.size());
  at::Tensor h =
      x.narrow(0, 0, blocks * rows * features_).view({blocks, rows, features_}).to(at::kBFloat16);
  for (size_t l = 0; l < weights_.size(); ++l) {
    h = at::baddbmm(Select(biases_[l], used), h, Select(weights_[l], used));
    if (l + 1 < weights_.size()) Activate(h);
  }
  return h.to(at::kFloat).contiguous();
}

// ---- CPU ----------------------------------------------------------------------------------

void CpuBackend::Compute(const Staging& staging,
                         std::span<const traversal::PolicyRequest> requests) {
  const StagedChunk& chunk = staging.chunk();
  const at::Tensor out = forward_->RunLegal(staging.x(), staging.mask(), chunk.used, chunk.rows);
  const float* o = out.data_ptr<float>();
  const int64_t actions = staging.actions();
  for (size_t i = 0; i < requests.size(); ++i) {
    const traversal::PolicyRequest& r = requests[i];
    traversal::ApplyHead({o + chunk.positions[i] * actions, static_cast<size_t>(actions)},
                         r.legal_mask, r.head, r.output);
  }
}

// ---- CUDA ---------------------------------------------------------------------------------

#if defined(LCFR_TORCH_CUDA)
namespace {

// Rows bucket for CUDA graphs: the next power of two, at least 8, at most max_rows.
int64_t Bucket(int64_t rows, int64_t max_rows) {
  int64_t bucket = 8;
  while (bucket < rows) bucket *= 2;
  return std::min(bucket, max_rows);
}

// The device part of serving a chunk: from the device copies of the staged rows and masks to
// the answers [blocks, rows, actions] on the device.
class DeviceComputation {
 public:
  virtual ~DeviceComputation() = default;
  virtual int64_t BlockRows(int64_t rows) const { return rows; }
  virtual at::Tensor Compute(const StagedChunk& chunk) = 0;
};

class ForwardAndHeads final : public DeviceComputation {
 public:
  ForwardAndHeads(Forward& forward, const at::Tensor& x, const at::Tensor& mask, int64_t actions)
      : forward_(forward), x_(x), mask_(mask), actions_(actions) {}
  at::Tensor Compute(const StagedChunk& chunk) override {
    const int64_t blocks = static_cast<int64_t>(chunk.used.size());
    const at::Tensor outputs = forward_.Run(x_, chunk.used, chunk.rows);
    const at::Tensor mask =
        mask_.narrow(0, 0, blocks * chunk.rows * actions_).view({blocks, chunk.rows, actions_});
    return PolicyFromOutputs(outputs, mask, chunk.heads);
  }

 private:
  Forward& forward_;
  at::Tensor x_, mask_;
  int64_t actions_;
};

// Decorates a computation with CUDA graphs: captured once per (rows bucket, networks, heads)
// after a warm-up run, then replayed. The inner computation's inputs and weights must stay at
// fixed addresses (they do: allocated once).
class GraphReplay final : public DeviceComputation {
 public:
  GraphReplay(std::unique_ptr<DeviceComputation> inner, c10::cuda::CUDAStream stream,
              int64_t max_rows)
      : inner_(std::move(inner)), stream_(stream), max_rows_(max_rows) {}
  int64_t BlockRows(int64_t rows) const override { return Bucket(rows, max_rows_); }
  at::Tensor Compute(const StagedChunk& chunk) override {
    int64_t key = chunk.rows;
    for (size_t b = 0; b < chunk.used.size(); ++b) {
      key =
          (key * 8 + (chunk.used[b] + 1)) * traversal::kNumHeads + static_cast<int>(chunk.heads[b]);
    }
    auto it = graphs_.find(key);
    if (it == graphs_.end()) {
      inner_->Compute(chunk);  // warm-up before capture, as CUDA graphs require
      stream_.synchronize();
      Captured captured;
      captured.graph = std::make_unique<at::cuda::CUDAGraph>();
      captured.graph->capture_begin();
      captured.output = inner_->Compute(chunk);
      captured.graph->capture_end();
      it = graphs_.emplace(key, std::move(captured)).first;
    }
    it->second.graph->replay();
    return it->second.output;
  }

 private:
  struct Captured {
    std::unique_ptr<at::cuda::CUDAGraph> graph;
    at::Tensor output;
  };
  std::unique_ptr<DeviceComputation> inner_;
  c10::cuda::CUDAStream stream_;
  int64_t max_rows_;
  std::map<int64_t, Captured> graphs_;
};

// One CUDA stream per backend (per worker): asynchronous copies of the staged rows to the
// device, the computation there, one copy of the answers back to pinned memory.
class CudaBackend final : public Backend {
 public:
  CudaBackend(const InferenceConfig& config, const NetworkShape& shape,
              std::unique_ptr<Forward> forward)
      : stream_(c10::cuda::getStreamFromPool()),
        forward_(std::move(forward)),
        features_(shape.input_size),
        actions_(shape.num_actions) {
    const int64_t rows = static_cast<int64_t>(kNumNetworks) * config.max_rows;
    const auto device = at::TensorOptions().dtype(at::kFloat).device(at::kCUDA);
    x_ = at::zeros({rows * features_}, device);
    mask_ = at::ones({rows * actions_}, device);
    answers_host_ =
        at::zeros({rows * actions_}, at::TensorOptions().dtype(at::kFloat).pinned_memory(true));
    computation_ = std::make_unique<ForwardAndHeads>(*forward_, x_, mask_, actions_);
    if (config.cuda_graphs) {
      computation_ =
          std::make_unique<GraphReplay>(std::move(computation_), stream_, config.max_rows);
    }
  }

  void Refresh(const ModelSnapshot& snapshot) override {
    c10::cuda::CUDAStreamGuard guard(stream_);
    forward_->Refresh(snapshot);
    stream_.synchronize();
  }
  int64_t BlockRows(int64_t rows) const override { return computation_->BlockRows(rows); }
  // The device applies one head per network block.
  bool MixedHeads() const override { return false; }

  void Compute(const Staging& staging,
               std::span<const traversal::PolicyRequest> requests) override {
    c10::cuda::CUDAStreamGuard guard(stream_);
    const StagedChunk& chunk = staging.chunk();
    const int64_t blocks = static_cast<int64_t>(chunk.used.size());
    const int64_t n_x = blocks * chunk.rows * features_;
    const int64_t n_mask = blocks * chunk.rows * actions_;
    x_.narrow(0, 0, n_x).copy_(staging.x().narrow(0, 0, n_x), /*non_blocking=*/true);
    mask_.narrow(0, 0, n_mask).copy_(staging.mask().narrow(0, 0, n_mask), true);
    const at::Tensor answers = computation_->Compute(chunk);
    answers_host_.narrow(0, 0, n_mask).copy_(answers.reshape({-1}), /*non_blocking=*/true);
    stream_.synchronize();
    const float* p = answers_host_.data_ptr<float>();
    for (size_t i = 0; i < requests.size(); ++i) {
      std::memcpy(requests[i].output.data(), p + chunk.positions[i] * actions_,
                  sizeof(float) * actions_);
    }
  }

 private:
  c10::cuda::CUDAStream stream_;
  std::unique_ptr<Forward> forward_;
  int64_t features_, actions_;
  at::Tensor x_, mask_, answers_host_;
  std::unique_ptr<DeviceComputation> computation_;
};

}  // namespace
#endif

std::unique_ptr<Backend> MakeBackend(const InferenceConfig& config, bool cuda,
                                     const NetworkShape& shape) {
  const at::Device device = cuda ? at::Device(at::kCUDA) : at::Device(at::kCPU);
  // bf16 from this many rows on; -1: never (InferenceConfig::precision).
  const bool auto_bf16 = config.precision == Precision::kAuto && !cuda && CpuHasBf16();
  const int64_t bf16_min_rows = config.precision == Precision::kBf16 ? 1
                                : auto_bf16                          ? kBf16MinRows
                                                                     : -1;
  std::unique_ptr<Forward> forward;
  if (shape.config.architecture == Architecture::kCards && !cuda) {
    forward = std::make_unique<CardsKernelForward>(shape, config.max_rows);
  } else if (shape.config.architecture == Architecture::kCards) {
    forward = std::make_unique<CardsStackedForward>(device, shape);
  } else if (bf16_min_rows == 1) {
    forward = std::make_unique<Bf16Forward>(device, shape);
  } else if (bf16_min_rows > 1) {
    forward = std::make_unique<PrecisionSwitch>(
        std::make_unique<Fp32Forward>(device, shape, config.max_rows),
        std::make_unique<Bf16Forward>(device, shape), bf16_min_rows);
  } else {
    forward = std::make_unique<Fp32Forward>(device, shape, config.max_rows);
  }
#if defined(LCFR_TORCH_CUDA)
  if (cuda) {
    // The cards network builds index tensors per forward: not capturable as a CUDA graph.
    InferenceConfig cuda_config = config;
    if (shape.config.architecture == Architecture::kCards) cuda_config.cuda_graphs = false;
    return std::make_unique<CudaBackend>(cuda_config, shape, std::move(forward));
  }
#endif
  LCFR_CHECK(!cuda) << "a CUDA backend in a build without CUDA";
  return std::make_unique<CpuBackend>(std::move(forward));
}

}  // namespace lcfr::inference
