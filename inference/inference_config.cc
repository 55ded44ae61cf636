// InferenceConfig's field table and the precision names (torch-free).
#include "base/stream_cat.h"
#include "inference/batched_evaluator.h"

namespace lcfr::inference {
namespace {

constexpr Field<InferenceConfig> kInferenceFields[] = {
    Choice<&InferenceConfig::device>("device", kDeviceNames, "where traversal forwards run"),
    Choice<&InferenceConfig::precision>(
        "precision", kPrecisionNames,
        "forward arithmetic (auto: bf16 for big batches on AVX512-BF16)"),
    Number("intra_op_threads", &InferenceConfig::intra_op_threads, 1, 1024,
           "libtorch CPU threads per forward"),
    Flag("cuda_graphs", &InferenceConfig::cuda_graphs,
         "CUDA: replay captured graphs per batch-size bucket"),
    Number("max_rows", &InferenceConfig::max_rows, 1, 1 << 20,
           "rows per forward; a larger flush is served in several forwards"),
};

}  // namespace

std::span<const Field<InferenceConfig>> InferenceConfigFields() { return kInferenceFields; }

std::string_view PrecisionName(Precision precision) {
  return NameOf(kPrecisionNames, static_cast<int>(precision));
}

absl::StatusOr<Precision> ParsePrecision(std::string_view name) {
  return ParseEnum<Precision>(kPrecisionNames, name, "precision");
}

}  // namespace lcfr::inference
