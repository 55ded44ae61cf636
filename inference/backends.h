// The batched evaluator's forward backends (inference/batched_evaluator.h), as types:
// - a Forward is the arithmetic of the fused multi-network MLP over staged blocks: Fp32Forward,
//   Bf16Forward (weights and activations in bfloat16, fp32 outputs), and PrecisionSwitch
//   (bf16 from a number of rows on, fp32 below: precision auto);
// - a Backend serves a staged chunk with a Forward: CpuBackend (the forward on the host
//   buffers, then the heads row by row, traversal::ApplyHead) or CudaBackend (copies to the
//   device on the evaluator's stream, forward and heads there, PolicyFromOutputs, one copy
//   back);
// - on CUDA the device part is a DeviceComputation: ForwardAndHeads, optionally decorated by
//   GraphReplay (a CUDA graph captured once per networks, heads and rows bucket, then
//   replayed; rows padded up to the bucket).
// MakeBackend composes them from the configuration. Internal to inference/ (includes
// libtorch).
#ifndef LCFR_INFERENCE_BACKENDS_H_
#define LCFR_INFERENCE_BACKENDS_H_

#include <ATen/Tensor.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "inference/batched_evaluator.h"
#include "inference/cards_kernel.h"
#include "inference/cards_net.h"
#include "inference/networks.h"
#include "inference/snapshot.h"
#include "inference/staging.h"
#include "traversal/evaluator.h"

namespace lcfr::inference {

class Forward {
 public:
  virtual ~Forward() = default;
  // Takes the snapshot's weights. On CUDA they are copied into tensors allocated once (captured
  // graphs keep pointing at them), asynchronously on the current stream.
  virtual void Refresh(const ModelSnapshot& snapshot) = 0;
  // The raw outputs [blocks, rows, actions] (fp32, on the device) of the networks `used` for
  // the blocks x rows staged rows at the start of `x` (flat, on the device).
  virtual at::Tensor Run(const at::Tensor& x, const std::vector<int>& used, int64_t rows) = 0;
  // Run when only the legal actions' outputs are wanted: `mask` holds the staged rows' legal
  // masks ([blocks * rows, actions], 1.0 legal), and the outputs elsewhere may be anything.
  // By default Run; CardsKernelForward skips the work of the illegal actions.
  virtual at::Tensor RunLegal(const at::Tensor& x, const at::Tensor& mask,
                              const std::vector<int>& used, int64_t rows) {
    (void)mask;
    return Run(x, used, rows);
  }
};

// What every Forward shares: the device, the shape, and the stacked weights of a subset of the
// networks.
class StackedForward : public Forward {
 protected:
  StackedForward(at::Device device, const NetworkShape& shape);
  // The stacked weights (or biases) of the networks in `used` (ascending ids).
  at::Tensor Select(const at::Tensor& stacked, const std::vector<int>& used) const;
  void Activate(at::Tensor& t) const;
  // Copies the snapshot into `weights`/`biases` of `dtype` (allocated on first use).
  void CopyWeights(const ModelSnapshot& snapshot, at::ScalarType dtype,
                   std::vector<at::Tensor>& weights, std::vector<at::Tensor>& biases);
  // fp32 weights: the snapshot's own tensors on the CPU, CopyWeights on a device.
  void TakeFp32(const ModelSnapshot& snapshot, std::vector<at::Tensor>& weights,
                std::vector<at::Tensor>& biases);

  at::Device device_;
  int64_t features_, actions_;
  Activation activation_ = Activation::kRelu;

 private:
  std::array<at::Tensor, 1u << kNumNetworks> subset_index_;  // by bitmask of network ids
};

class Fp32Forward final : public StackedForward {
 public:
  Fp32Forward(at::Device device, const NetworkShape& shape, int max_rows);
  void Refresh(const ModelSnapshot& snapshot) override;
  at::Tensor Run(const at::Tensor& x, const std::vector<int>& used, int64_t rows) override;

 private:
  std::vector<at::Tensor> weights_, biases_;
  std::array<at::Tensor, 2> hidden_;  // activation buffers, reused layer after layer
};

class Bf16Forward final : public StackedForward {
 public:
  Bf16Forward(at::Device device, const NetworkShape& shape);
  void Refresh(const ModelSnapshot& snapshot) override;
  at::Tensor Run(const at::Tensor& x, const std::vector<int>& used, int64_t rows) override;

 private:
  std::vector<at::Tensor> weights_, biases_;
};

// The cards network (inference/cards_net.h) on the stacked weights of the networks asked for:
// one CardsForward over all their blocks, fp32 (precision settings do not apply).
class CardsStackedForward final : public StackedForward {
 public:
  CardsStackedForward(at::Device device, const NetworkShape& shape)
      : StackedForward(device, shape),
        shape_(shape),
        constants_(CardsConstants::Make(shape, device)) {}
  void Refresh(const ModelSnapshot& snapshot) override;
  at::Tensor Run(const at::Tensor& x, const std::vector<int>& used, int64_t rows) override;

 private:
  NetworkShape shape_;
  CardsConstants constants_;
  std::vector<at::Tensor> weights_, biases_;
};

// The cards network on the CPU without libtorch's operations (inference/cards_kernel.h): one
// CardsKernel with every network's weights, row by row; the outputs land in a buffer allocated
// once. The CPU's default for the cards architecture (CardsStackedForward stays for CUDA).
class CardsKernelForward final : public Forward {
 public:
  CardsKernelForward(const NetworkShape& shape, int max_rows,
                     CardsKernelIsa isa = SupportedCardsKernelIsas().front());
  void Refresh(const ModelSnapshot& snapshot) override;
  at::Tensor Run(const at::Tensor& x, const std::vector<int>& used, int64_t rows) override;
  // Illegal actions' outputs 0, their heads skipped (CardsKernel::Run's `legal`).
  at::Tensor RunLegal(const at::Tensor& x, const at::Tensor& mask, const std::vector<int>& used,
                      int64_t rows) override;

 private:
  at::Tensor RunRows(const at::Tensor& x, const float* mask, const std::vector<int>& used,
                     int64_t rows);
  NetworkShape shape_;
  CardsKernel kernel_;
  at::Tensor out_;  // [kNumNetworks * max_rows * actions]
};

// bf16 for chunks of at least `min_rows` rows (blocks x rows), fp32 below.
class PrecisionSwitch final : public Forward {
 public:
  PrecisionSwitch(std::unique_ptr<Forward> fp32, std::unique_ptr<Forward> bf16, int64_t min_rows)
      : fp32_(std::move(fp32)), bf16_(std::move(bf16)), min_rows_(min_rows) {}
  void Refresh(const ModelSnapshot& snapshot) override {
    fp32_->Refresh(snapshot);
    bf16_->Refresh(snapshot);
  }
  at::Tensor Run(const at::Tensor& x, const std::vector<int>& used, int64_t rows) override {
    const bool large = static_cast<int64_t>(used.size()) * rows >= min_rows_;
    return (large ? bf16_ : fp32_)->Run(x, used, rows);
  }

 private:
  std::unique_ptr<Forward> fp32_, bf16_;
  int64_t min_rows_;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual void Refresh(const ModelSnapshot& snapshot) = 0;
  // Rows per block for a chunk whose largest group has `rows` requests.
  virtual int64_t BlockRows(int64_t rows) const { return rows; }
  // Whether one block may carry requests for several heads (else the evaluator serves each
  // head's requests as a chunk of its own).
  virtual bool MixedHeads() const = 0;
  // Writes every request's output from the staged chunk.
  virtual void Compute(const Staging& staging,
                       std::span<const traversal::PolicyRequest> requests) = 0;
};

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(std::unique_ptr<Forward> forward) : forward_(std::move(forward)) {}
  void Refresh(const ModelSnapshot& snapshot) override { forward_->Refresh(snapshot); }
  bool MixedHeads() const override { return true; }
  void Compute(const Staging& staging, std::span<const traversal::PolicyRequest> requests) override;

 private:
  std::unique_ptr<Forward> forward_;
};

// The CPU or CUDA backend of `config` for networks of `shape` (`cuda`: the resolved device).
std::unique_ptr<Backend> MakeBackend(const InferenceConfig& config, bool cuda,
                                     const NetworkShape& shape);

// Whether this CPU runs bfloat16 GEMMs natively (AVX512-BF16).
bool CpuHasBf16();

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_BACKENDS_H_
