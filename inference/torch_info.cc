#include "inference/torch_info.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/cuda.h>
#include <torch/version.h>

namespace lcfr::inference {

TorchInfo GetTorchInfo() {
  TorchInfo info;
  info.version = TORCH_VERSION;
  info.config = at::show_config();
  info.cuda_built = info.config.find("USE_CUDA=ON") != std::string::npos ||
                    info.config.find("USE_CUDA=1") != std::string::npos;
  info.cuda_devices = static_cast<int>(torch::cuda::device_count());
  info.intra_op_threads = at::get_num_threads();
  return info;
}

}  // namespace lcfr::inference
