// Weight publication: the trainer publishes new network weights between iterations; each
// worker's evaluator switches to the latest published version at the start of a batch, so a
// batch (and a traversal, when publishing happens between iterations) never sees a
// half-updated network. Torch-free header.
#ifndef LCFR_INFERENCE_MODEL_STORE_H_
#define LCFR_INFERENCE_MODEL_STORE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "inference/network_config.h"

namespace lcfr::inference {

struct NetworkSet;     // inference/networks.h
struct ModelSnapshot;  // inference/snapshot.h: immutable weights of one published version

// Thread-safe. Shared by the trainer (Publish) and every worker's evaluator (Latest).
class ModelStore {
 public:
  // Publishes `initial` as version 1.
  explicit ModelStore(const NetworkSet& initial);
  ~ModelStore();

  // Copies the networks' current weights into a new immutable snapshot and makes it the latest.
  // Precondition: the same shape as the initial networks (CHECKed).
  void Publish(const NetworkSet& networks);
  std::shared_ptr<const ModelSnapshot> Latest() const;
  // Incremented by every Publish; evaluators compare it to decide whether to refresh.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  const NetworkShape& shape() const { return shape_; }
  // The bytes of one fp32 copy of all its networks' weights and biases (what an evaluator's
  // backend may copy; for memory estimates).
  int64_t parameter_bytes() const { return parameter_bytes_; }

 private:
  NetworkShape shape_;
  int64_t parameter_bytes_ = 0;
  mutable std::mutex mutex_;
  std::shared_ptr<const ModelSnapshot> latest_;
  std::atomic<uint64_t> version_{0};
};

// A store holding freshly initialised networks of `shape` (libtorch's default initialisation,
// seeded): for benchmarks and sweeps, from code that must not include libtorch.
std::shared_ptr<ModelStore> CreateRandomModelStore(const NetworkShape& shape, uint64_t seed);

}  // namespace lcfr::inference

#endif  // LCFR_INFERENCE_MODEL_STORE_H_
