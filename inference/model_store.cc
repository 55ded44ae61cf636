#include "inference/model_store.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include "base/check.h"
#include "inference/networks.h"
#include "inference/snapshot.h"

namespace lcfr::inference {

ModelSnapshot ModelSnapshot::FromNetworks(const NetworkSet& networks, uint64_t version) {
  c10::InferenceMode guard;
  ModelSnapshot snapshot;
  snapshot.version = version;
  snapshot.activation = networks.shape.config.activation;
  const size_t num_layers = networks.nets[0]->layers().size();
  for (size_t l = 0; l < num_layers; ++l) {
    std::vector<at::Tensor> w, b;
    for (int n = 0; n < kNumNetworks; ++n) {
      const auto& layer = networks.nets[n]->layers()[l];
      // torch::nn::Linear keeps weight as [out, in]; the forward computes x @ W with W [in, out].
      w.push_back(layer->weight.detach().to(at::kCPU, at::kFloat).t());
      b.push_back(layer->bias.detach().to(at::kCPU, at::kFloat).unsqueeze(0));
    }
    snapshot.weights.push_back(at::stack(w).contiguous());
    snapshot.biases.push_back(at::stack(b).contiguous());
  }
  return snapshot;
}

ModelStore::ModelStore(const NetworkSet& initial) : shape_(initial.shape) {
  for (const PolicyNet& net : initial.nets) {
    for (const at::Tensor& p : net->parameters()) {
      parameter_bytes_ += p.numel() * static_cast<int64_t>(sizeof(float));
    }
  }
  Publish(initial);
}

ModelStore::~ModelStore() = default;

void ModelStore::Publish(const NetworkSet& networks) {
  LCFR_CHECK(networks.shape == shape_)
      << "publishing " << networks.shape.ToString() << " into a store of " << shape_.ToString();
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t next = version_.load(std::memory_order_relaxed) + 1;
  latest_ = std::make_shared<const ModelSnapshot>(ModelSnapshot::FromNetworks(networks, next));
  version_.store(next, std::memory_order_release);
}

std::shared_ptr<const ModelSnapshot> ModelStore::Latest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_;
}

std::shared_ptr<ModelStore> CreateRandomModelStore(const NetworkShape& shape, uint64_t seed) {
  return std::make_shared<ModelStore>(NetworkSet::Create(shape, seed));
}

}  // namespace lcfr::inference
