// Several training processes ("ranks") working as one run, through libtorch's c10d: a TCPStore
// for the rendezvous and a Gloo process group for the collectives. Torch-free header.
//
// Launch (docs/distributed.md): the standard variables RANK, WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT and LOCAL_RANK, as torchrun, Slurm wrappers and mpirun set them, or
// `lcfr train --nproc N`, which starts N local ranks itself. Without WORLD_SIZE, or with
// WORLD_SIZE=1, the run is a single process and nothing here opens a socket.
//
// Every collective either completes on every rank or throws DistributedError on every rank
// that is still alive: a peer that exits breaks its connections at once, and a peer that hangs
// is detected by the timeout (distributed.timeout_s).
#ifndef LCFR_TRAINING_DISTRIBUTED_H_
#define LCFR_TRAINING_DISTRIBUTED_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace lcfr::training {

struct DistributedEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;

  // Reads RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT. Unset WORLD_SIZE means a
  // single process. Errors name the variable and its value.
  static absl::StatusOr<DistributedEnv> FromEnvironment();
};

class DistributedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Communicator {
 public:
  // A single process: every collective is the identity.
  Communicator() = default;
  virtual ~Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  // Rendezvous with the other ranks (rank 0 hosts the TCPStore) and creates the Gloo group.
  // A single process when env.world_size == 1. Fails (with the address, port and cause) when
  // the rendezvous does not complete within `timeout`.
  static absl::StatusOr<std::unique_ptr<Communicator>> Connect(const DistributedEnv& env,
                                                               std::chrono::milliseconds timeout);

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  bool distributed() const { return world_size_ > 1; }

  // In-place sums over the ranks. Throw DistributedError.
  virtual void AllReduceSum(std::span<float> data);
  virtual void AllReduceSum(std::span<int64_t> data);
  virtual void AllReduceMax(std::span<double> data);
  // Every rank's value, by rank.
  virtual std::vector<int64_t> AllGather(int64_t value);
  virtual void Barrier();

 protected:
  int rank_ = 0;
  int world_size_ = 1;
};

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_DISTRIBUTED_H_
