#include "training/distributed.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <c10/util/Logging.h>

#include <cstdlib>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "base/stream_cat.h"

namespace lcfr::training {
namespace {

using lcfr::StreamCat;

absl::StatusOr<int> IntVariable(const char* name, int fallback, int min, int max) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < min || value > max) {
    return absl::InvalidArgumentError(StreamCat("environment variable ", name, "='", text,
                                                "': expected an integer in [", min, ", ", max,
                                                "]"));
  }
  return static_cast<int>(value);
}

// c10d's messages carry a C++ backtrace after the first line; keep the first line.
std::string Reason(const std::exception& e) {
  std::string text;
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) {
    text = c10_error->what_without_backtrace();
  } else {
    text = e.what();
  }
  const size_t newline = text.find('\n');
  return newline == std::string::npos ? text : text.substr(0, newline);
}

class GlooCommunicator : public Communicator {
 public:
  GlooCommunicator(const DistributedEnv& env, std::chrono::milliseconds timeout,
                   c10::intrusive_ptr<c10d::Store> store,
                   c10::intrusive_ptr<c10d::ProcessGroupGloo> group)
      : timeout_(timeout), store_(std::move(store)), group_(std::move(group)) {
    rank_ = env.rank;
    world_size_ = env.world_size;
  }

  void AllReduceSum(std::span<float> data) override {
    AllReduce(data.data(), static_cast<int64_t>(data.size()), at::kFloat, c10d::ReduceOp::SUM,
              "all-reduce");
  }
  void AllReduceSum(std::span<int64_t> data) override {
    AllReduce(data.data(), static_cast<int64_t>(data.size()), at::kLong, c10d::ReduceOp::SUM,
              "all-reduce");
  }
  void AllReduceMax(std::span<double> data) override {
    AllReduce(data.data(), static_cast<int64_t>(data.size()), at::kDouble, c10d::ReduceOp::MAX,
              "all-reduce");
  }

  std::vector<int64_t> AllGather(int64_t value) override {
    std::vector<int64_t> values(world_size_);
    Guard("all-gather", [&] {
      std::vector<at::Tensor> input{at::tensor({value}, at::kLong)};
      std::vector<std::vector<at::Tensor>> output(1);
      for (int r = 0; r < world_size_; ++r) output[0].push_back(at::zeros({1}, at::kLong));
      group_->allgather(output, input)->wait(timeout_);
      for (int r = 0; r < world_size_; ++r) values[r] = output[0][r].item<int64_t>();
    });
    return values;
  }

  void Barrier() override {
    Guard("barrier", [&] { group_->barrier()->wait(timeout_); });
  }

 private:
  void AllReduce(void* data, int64_t count, at::ScalarType type, c10d::ReduceOp::RedOpType op,
                 const char* what) {
    if (count == 0) return;
    Guard(what, [&] {
      std::vector<at::Tensor> tensors{at::from_blob(data, {count}, at::TensorOptions(type))};
      c10d::AllreduceOptions options;
      options.reduceOp = c10d::ReduceOp(op);
      group_->allreduce(tensors, options)->wait(timeout_);
    });
  }

  template <typename F>
  void Guard(const char* what, F&& f) {
    try {
      f();
    } catch (const std::exception& e) {
      throw DistributedError(
          StreamCat("rank ", rank_, " of ", world_size_, ": ", what, " failed: ", Reason(e),
                    " (another rank exited, was killed or did not answer within ",
                    std::chrono::duration_cast<std::chrono::seconds>(timeout_).count(), " s)"));
    }
  }

  std::chrono::milliseconds timeout_;
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group_;
};

}  // namespace

absl::StatusOr<DistributedEnv> DistributedEnv::FromEnvironment() {
  DistributedEnv env;
  auto world = IntVariable("WORLD_SIZE", 1, 1, 1 << 16);
  if (!world.ok()) return world.status();
  env.world_size = *world;
  auto rank = IntVariable("RANK", 0, 0, env.world_size - 1);
  if (!rank.ok()) return rank.status();
  env.rank = *rank;
  auto local = IntVariable("LOCAL_RANK", env.rank, 0, 1 << 16);
  if (!local.ok()) return local.status();
  env.local_rank = *local;
  auto port = IntVariable("MASTER_PORT", 29500, 1, 65535);
  if (!port.ok()) return port.status();
  env.master_port = *port;
  if (const char* addr = std::getenv("MASTER_ADDR"); addr != nullptr && *addr != '\0') {
    env.master_addr = addr;
  }
  if (env.world_size > 1 && std::getenv("RANK") == nullptr) {
    return absl::InvalidArgumentError(
        StreamCat("WORLD_SIZE=", env.world_size,
                  " but RANK is not set: every rank needs its own "
                  "RANK (torchrun and srun set both; or use lcfr train --nproc N)"));
  }
  return env;
}

void Communicator::AllReduceSum(std::span<float>) {}
void Communicator::AllReduceSum(std::span<int64_t>) {}
void Communicator::AllReduceMax(std::span<double>) {}
std::vector<int64_t> Communicator::AllGather(int64_t value) { return {value}; }
void Communicator::Barrier() {}

absl::StatusOr<std::unique_ptr<Communicator>> Communicator::Connect(
    const DistributedEnv& env, std::chrono::milliseconds timeout) {
  if (env.world_size == 1) return std::make_unique<Communicator>();
  // c10d logs every failed connection attempt, with a backtrace, before the one clear message
  // below; keep only fatal ones unless the user asked for c10's logs (TORCH_CPP_LOG_LEVEL).
  if (std::getenv("TORCH_CPP_LOG_LEVEL") == nullptr) FLAGS_caffe2_log_level = 3;
  try {
    c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<uint16_t>(env.master_port);
    store_options.isServer = env.rank == 0;
    store_options.numWorkers = env.world_size;
    store_options.waitWorkers = true;
    store_options.timeout = timeout;
    auto store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, store_options);
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    // GLOO_SOCKET_IFNAME, as in PyTorch, picks the network interface; otherwise loopback for a
    // local master and this host's address for a remote one.
    const char* ifname = std::getenv("GLOO_SOCKET_IFNAME");
    const bool local = env.master_addr == "127.0.0.1" || env.master_addr == "localhost";
    options->devices.push_back(ifname != nullptr && *ifname != '\0'
                                   ? c10d::ProcessGroupGloo::createDeviceForInterface(ifname)
                               : local
                                   ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                   : c10d::ProcessGroupGloo::createDefaultDevice());
    auto group =
        c10::make_intrusive<c10d::ProcessGroupGloo>(store, env.rank, env.world_size, options);
    return std::unique_ptr<Communicator>(
        new GlooCommunicator(env, timeout, std::move(store), std::move(group)));
  } catch (const std::exception& e) {
    return absl::UnavailableError(StreamCat(
        "rank ", env.rank, " of ", env.world_size, ": cannot join the run at ", env.master_addr,
        ":", env.master_port, " within ",
        std::chrono::duration_cast<std::chrono::seconds>(timeout).count(), " s: ", Reason(e)));
  }
}

}  // namespace lcfr::training
