// What libtorch this build runs on: version, BLAS/CUDA configuration, visible devices.
// Torch-free header; the libtorch calls live in torch_info.cc.
#ifndef LCFR_INFERENCE_TORCH_INFO_H_
#define LCFR_INFERENCE_TORCH_INFO_H_

#include <string>

namespace lcfr::inference {

struct TorchInfo {
  std::string version;       // e.g. "2.11.0"
  bool cuda_built = false;   // libtorch was built with CUDA
  int cuda_devices = 0;      // CUDA devices visible now
  int intra_op_threads = 0;  // torch::get_num_threads()
  std::string config;        // at::show_config(): compiler, BLAS, CPU capability, CUDA
};

TorchInfo GetTorchInfo();

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_TORCH_INFO_H_
