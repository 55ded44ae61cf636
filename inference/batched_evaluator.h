// The libtorch implementation of traversal::Evaluator: one batched forward serves every
// waiting request of a worker, on the CPU or a CUDA device. Torch-free header.
//
// A batch may mix networks (both players' advantage networks, the strategy network). It is
// served in one computation, not split into per-network forwards: rows are grouped by network
// into a [networks, rows, features] block (padded to the largest group) and each layer is one
// batched matmul against the networks' stacked weights (one plain matmul when the batch uses
// one network). Then, batched over rows, the head each request names (traversal/evaluator.h:
// regret matching with its fallback, masked softmax, raw values): the caller decides what an
// answer means, the evaluator computes it.
//
// Precision: see InferenceConfig::precision. bfloat16 keeps 8 bits of mantissa: strategies
// differ from fp32 by about 1e-2 relative; the tests bound it.
//
// Inference mode (no autograd), staging and activation buffers allocated once and reused.
// CUDA: pinned host staging, one CUDA stream per evaluator (worker), asynchronous copies, and
// optionally CUDA graphs captured once per (networks used, rows bucket) and replayed, rows
// padded up to the bucket (a power of two, at least 8).
//
// Weights come from a ModelStore; the evaluator switches to the latest published version at
// the start of a batch. One evaluator per worker; not thread-safe.
#ifndef LCFR_INFERENCE_BATCHED_EVALUATOR_H_
#define LCFR_INFERENCE_BATCHED_EVALUATOR_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/fields.h"
#include "inference/model_store.h"
#include "inference/network_config.h"
#include "traversal/evaluator.h"
#include "traversal/regret_matching.h"

namespace lcfr::inference {

inline constexpr int kBf16MinRows = 16;

// Arithmetic of the forward: fp32; bf16 (weights and activations in bfloat16, fp32 outputs);
// or auto: bf16 for batches of at least kBf16MinRows rows on a CPU with AVX512-BF16 (where
// oneDNN's bf16 GEMM runs about 3.5x faster than fp32, benchmarks/README.md), fp32 otherwise
// (small batches, CPUs without it, CUDA).
enum class Precision { kFp32, kBf16, kAuto };
inline constexpr EnumName kPrecisionNames[] = {{"fp32", 0}, {"bf16", 1}, {"auto", 2}};
std::string_view PrecisionName(Precision precision);
absl::StatusOr<Precision> ParsePrecision(std::string_view name);

// The evaluator's configuration (YAML section `inference`); defaults are the default run's.
struct InferenceConfig {
  Device device = Device::kCpu;  // kAuto: cuda when a device is visible
  // libtorch intra-op threads for CPU forwards. A process-wide libtorch setting: with several
  // workers, each worker's forward runs on this many threads.
  int intra_op_threads = 1;
  // Rows per forward: a larger flush is served in forwards of at most this many rows. Not the
  // scheduler's flush_size (traversal/runner.h), which decides when a flush happens.
  int max_rows = 1024;
  bool cuda_graphs = false;  // CUDA only: replay captured graphs per batch-size bucket
  Precision precision = Precision::kAuto;

  absl::Status Validate() const;  // the field table's ranges; never probes the hardware
};

// InferenceConfig's field table (base/fields.h).
std::span<const Field<InferenceConfig>> InferenceConfigFields();

// kCpu or kCuda for a requested device; asking for cuda where there is none is an error that
// says why (no CUDA in this libtorch build, or no visible device). Probes the hardware: call it
// where the evaluators are built, not in config validation.
absl::StatusOr<Device> ResolveDevice(Device device);

absl::StatusOr<std::unique_ptr<traversal::Evaluator>> MakeBatchedEvaluator(
    std::shared_ptr<const ModelStore> store, const InferenceConfig& config);

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_BATCHED_EVALUATOR_H_
