// The policy boundary, piece by piece (mission.md): encode + legal, apply + undo, the one-row
// policy call of a plain recursive traversal, the batched forward per call and per row from 1
// to 1024 rows against the raw GEMM floor of the same shapes, and the fused multi-network
// forward against the per-network split. CPU always; CUDA variants are registered when a CUDA
// device is visible.
//
//   build/benchmarks/bench_policy_boundary [--benchmark_filter=...]
//
// Network: Lost Cities classic (618 inputs, 31 actions), 512x3 ReLU unless LCFR_BENCH_HIDDEN /
// LCFR_BENCH_LAYERS say otherwise. One intra-op thread. Counters: per_call and per_row, wall time
// per policy call and per row (shown with SI prefixes, e.g. 12.3us).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>
#include <c10/core/InferenceMode.h>
#include <torch/cuda.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "base/rng.h"
#include "engine/lost_cities.h"
#include "inference/backends.h"
#include "inference/batched_evaluator.h"
#include "inference/model_store.h"
#include "inference/networks.h"
#include "inference/snapshot.h"
#include "traversal/evaluators.h"
#include "traversal/regret_matching.h"

namespace lcfr::inference {
namespace {

const engine::LostCities& Game() {
  static const engine::LostCities game;
  return game;
}

int EnvInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value ? std::atoi(value) : fallback;
}

NetworkShape Shape() {
  NetworkShape shape;
  shape.game = "lost-cities";
  shape.encoding_version = engine::LostCities::kEncodingVersion;
  shape.input_size = Game().EncodingSize();
  shape.num_actions = Game().num_actions();
  shape.config.hidden_width = EnvInt("LCFR_BENCH_HIDDEN", 512);
  shape.config.hidden_layers = EnvInt("LCFR_BENCH_LAYERS", 3);
  return shape;
}

const NetworkSet& Networks() {
  static const NetworkSet nets = NetworkSet::Create(Shape(), 1);
  return nets;
}

std::shared_ptr<const ModelStore> Store() {
  static const auto store = std::make_shared<const ModelStore>(Networks());
  return store;
}

// Non-terminal states of random classic games, with their legal masks.
struct StatePool {
  std::vector<engine::State> states;
  std::vector<uint32_t> masks;
};

const StatePool& Pool() {
  static const StatePool pool = [] {
    StatePool p;
    Rng rng(11);
    while (p.states.size() < 1024) {
      engine::State s = Game().Deal(rng);
      while (!engine::LostCities::IsTerminal(s)) {
        const uint32_t mask = Game().LegalMask(s);
        if (rng.Uniform(16) == 0) p.states.push_back(s), p.masks.push_back(mask);
        uint32_t m = mask;
        for (uint32_t k = rng.Uniform(static_cast<uint32_t>(std::popcount(mask))); k > 0; --k) {
          m &= m - 1;
        }
        Game().ApplyUnchecked(s, std::countr_zero(m));
      }
    }
    return p;
  }();
  return pool;
}

void SetPerCall(benchmark::State& state, int64_t calls, int64_t rows) {
  // Inverted rates: seconds per call and per row, printed with SI prefixes (e.g. 12.3us).
  state.counters["per_call"] = benchmark::Counter(
      static_cast<double>(calls), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["per_row"] = benchmark::Counter(
      static_cast<double>(rows), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_EncodeAndLegal(benchmark::State& state) {
  const StatePool& pool = Pool();
  std::vector<float> features(Game().EncodingSize());
  size_t i = 0;
  for (auto _ : state) {
    const engine::State& s = pool.states[i++ % pool.states.size()];
    benchmark::DoNotOptimize(Game().LegalMask(s));
    Game().Encode(s, features);
    benchmark::ClobberMemory();
  }
  SetPerCall(state, state.iterations(), state.iterations());
}
BENCHMARK(BM_EncodeAndLegal);

void BM_ApplyUndo(benchmark::State& state) {
  std::vector<engine::State> states = Pool().states;
  std::vector<int> actions;
  for (size_t k = 0; k < states.size(); ++k) actions.push_back(std::countr_zero(Pool().masks[k]));
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ % states.size();
    const auto undo = Game().ApplyUnchecked(states[k], actions[k]);
    Game().Undo(states[k], actions[k], undo);
    benchmark::ClobberMemory();
  }
  SetPerCall(state, state.iterations(), state.iterations());
}
BENCHMARK(BM_ApplyUndo);

// The one-row policy call of a plain recursive traversal: encode -> staging tensor -> forward
// -> read back -> regret matching, through the batched evaluator with a batch of one.
void OneRowPolicyCall(benchmark::State& state, Device device) {
  InferenceConfig config;
  config.device = device;
  auto evaluator = MakeBatchedEvaluator(Store(), config);
  if (!evaluator.ok())
    return state.SkipWithError(std::string(evaluator.status().message()).c_str());
  const StatePool& pool = Pool();
  std::vector<float> features(Game().EncodingSize()), probs(Game().num_actions());
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ % pool.states.size();
    Game().Encode(pool.states[k], features);
    const traversal::PolicyRequest request{0, traversal::Head::kRegretMatching, features,
                                           pool.masks[k], probs};
    (*evaluator)->Evaluate({&request, 1});
    benchmark::DoNotOptimize(probs.data());
  }
  SetPerCall(state, state.iterations(), state.iterations());
}

// The same call the way a straightforward libtorch program writes it: from_blob, the
// nn::Module forward, regret matching on the copied-back row.
void BM_OneRowPolicyCallModule(benchmark::State& state) {
  c10::InferenceMode guard;
  at::set_num_threads(1);
  NetworkSet nets = Networks().Clone();
  const StatePool& pool = Pool();
  std::vector<float> features(Game().EncodingSize()), probs(Game().num_actions());
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ % pool.states.size();
    Game().Encode(pool.states[k], features);
    const at::Tensor x = at::from_blob(features.data(), {1, Game().EncodingSize()});
    const at::Tensor y = nets.nets[0]->forward(x).contiguous();
    traversal::RegretMatching({y.data_ptr<float>(), probs.size()}, pool.masks[k], probs,
                              traversal::RmFallback::kArgmax);
    benchmark::DoNotOptimize(probs.data());
  }
  SetPerCall(state, state.iterations(), state.iterations());
}
BENCHMARK(BM_OneRowPolicyCallModule);

// Requests for `rows` pool states, networks from `networks` in turn.
struct Requests {
  std::vector<std::vector<float>> features, outputs;
  std::vector<traversal::PolicyRequest> list;
};

Requests MakeRequests(int rows, const std::vector<int>& networks) {
  Requests r;
  const StatePool& pool = Pool();
  r.features.resize(rows, std::vector<float>(Game().EncodingSize()));
  r.outputs.resize(rows, std::vector<float>(Game().num_actions()));
  for (int i = 0; i < rows; ++i) {
    Game().Encode(pool.states[i % pool.states.size()], r.features[i]);
    // The heads the traversals and bots ask: regret matching of the advantage networks, the
    // strategy network's softmax, the value network's raw outputs.
    const int network = networks[i % networks.size()];
    const traversal::Head head = network == traversal::kStrategyNetwork ? traversal::Head::kSoftmax
                                 : network == traversal::kValueNetwork
                                     ? traversal::Head::kRaw
                                     : traversal::Head::kRegretMatching;
    r.list.push_back(
        {network, head, r.features[i], pool.masks[i % pool.states.size()], r.outputs[i]});
  }
  return r;
}

// The evaluator on `rows` rows of one network: staging + forward + regret matching.
void BatchedForward(benchmark::State& state, Device device, Precision precision) {
  const int rows = static_cast<int>(state.range(0));
  InferenceConfig config;
  config.device = device;
  config.precision = precision;
  auto evaluator = MakeBatchedEvaluator(Store(), config);
  if (!evaluator.ok())
    return state.SkipWithError(std::string(evaluator.status().message()).c_str());
  Requests requests = MakeRequests(rows, {0});
  for (auto _ : state) (*evaluator)->Evaluate(requests.list);
  SetPerCall(state, state.iterations(), state.iterations() * rows);
}

// The floor: the same matrix products (addmm_out into preallocated buffers, ReLU in place), no
// staging, no post-processing.
void BM_GemmFloor(benchmark::State& state) {
  c10::InferenceMode guard;
  at::set_num_threads(1);
  const int64_t rows = state.range(0);
  const NetworkSet& nets = Networks();
  std::vector<at::Tensor> w, b, out;
  at::Tensor x = at::randn({rows, Game().EncodingSize()});
  for (const auto& layer : nets.nets[0]->layers()) {
    w.push_back(layer->weight.detach().t().contiguous());
    b.push_back(layer->bias.detach().clone());
    out.push_back(at::empty({rows, layer->weight.size(0)}));
  }
  for (auto _ : state) {
    const at::Tensor* in = &x;
    for (size_t l = 0; l < w.size(); ++l) {
      at::addmm_out(out[l], b[l], *in, w[l]);
      if (l + 1 < w.size()) out[l].relu_();
      in = &out[l];
    }
    benchmark::DoNotOptimize(out.back().data_ptr<float>());
  }
  SetPerCall(state, state.iterations(), state.iterations() * rows);
}
BENCHMARK(BM_GemmFloor)->RangeMultiplier(2)->Range(1, 1024);

// The bf16 floor: the same products in bfloat16 (oneDNN on CPUs with AVX512-BF16).
void BM_GemmFloorBf16(benchmark::State& state) {
  c10::InferenceMode guard;
  at::set_num_threads(1);
  const int64_t rows = state.range(0);
  const NetworkSet& nets = Networks();
  std::vector<at::Tensor> w, b;
  const at::Tensor x = at::randn({rows, Game().EncodingSize()}).to(at::kBFloat16);
  for (const auto& layer : nets.nets[0]->layers()) {
    w.push_back(layer->weight.detach().t().contiguous().to(at::kBFloat16));
    b.push_back(layer->bias.detach().to(at::kBFloat16));
  }
  for (auto _ : state) {
    at::Tensor h = x;
    for (size_t l = 0; l < w.size(); ++l) {
      h = at::addmm(b[l], h, w[l]);
      if (l + 1 < w.size()) h.relu_();
    }
    benchmark::DoNotOptimize(h.data_ptr());
  }
  SetPerCall(state, state.iterations(), state.iterations() * rows);
}
BENCHMARK(BM_GemmFloorBf16)->RangeMultiplier(2)->Range(1, 1024);

// ---- The cards network (network.architecture: cards) -----------------------------------------
// Its own shapes: LCFR_BENCH_CARDS_HIDDEN (default 128) wide, LCFR_BENCH_CARDS_LAYERS (default 2)
// encoder layers.
NetworkShape CardsBenchShape() {
  NetworkShape shape = Shape();
  shape.config.architecture = Architecture::kCards;
  shape.config.hidden_width = EnvInt("LCFR_BENCH_CARDS_HIDDEN", 128);
  shape.config.hidden_layers = EnvInt("LCFR_BENCH_CARDS_LAYERS", 2);
  const engine::Rules& r = Game().rules();
  shape.cards = {r.colors, r.ranks, r.wagers, r.min_rank, r.hand_size};
  return shape;
}

const NetworkSet& CardsNetworks() {
  static const NetworkSet nets = NetworkSet::Create(CardsBenchShape(), 1);
  return nets;
}

// The evaluator on `rows` rows of the cards network: staging, the cards forward (gathers
// included), regret matching.
void BM_CardsBatchedForward(benchmark::State& state) {
  at::set_num_threads(1);
  const int rows = static_cast<int>(state.range(0));
  static const auto store = std::make_shared<const ModelStore>(CardsNetworks());
  auto evaluator = MakeBatchedEvaluator(store, InferenceConfig{});
  if (!evaluator.ok())
    return state.SkipWithError(std::string(evaluator.status().message()).c_str());
  Requests requests = MakeRequests(rows, {0});
  for (auto _ : state) (*evaluator)->Evaluate(requests.list);
  SetPerCall(state, state.iterations(), state.iterations() * rows);
}
BENCHMARK(BM_CardsBatchedForward)->RangeMultiplier(2)->Range(1, 1024);

// Its GEMM floor: the same matrix products at their own row counts (the encoder and the head on
// rows x colours rows, the context and the deck on rows), into preallocated buffers.
void BM_CardsGemmFloor(benchmark::State& state) {
  c10::InferenceMode guard;
  at::set_num_threads(1);
  const int64_t rows = state.range(0);
  const int64_t colours = Game().rules().colors;
  const auto& layers = CardsNetworks().nets[0]->layers();
  const size_t encoder = layers.size() - 4;
  std::vector<at::Tensor> w, b, in, out;
  for (size_t l = 0; l < layers.size(); ++l) {
    const bool per_colour = l < encoder || l == encoder + 1 || l == encoder + 2;
    const int64_t n = per_colour ? rows * colours : rows;
    w.push_back(layers[l]->weight.detach().t().contiguous());
    b.push_back(layers[l]->bias.detach().clone());
    in.push_back(at::randn({n, layers[l]->weight.size(1)}));
    out.push_back(at::empty({n, layers[l]->weight.size(0)}));
  }
  for (auto _ : state) {
    for (size_t l = 0; l < w.size(); ++l) at::addmm_out(out[l], b[l], in[l], w[l]);
    benchmark::DoNotOptimize(out.back().data_ptr<float>());
  }
  SetPerCall(state, state.iterations(), state.iterations() * rows);
}
BENCHMARK(BM_CardsGemmFloor)->RangeMultiplier(2)->Range(1, 1024);

// The cards forward alone (no staging, no heads) on `rows` encodings of one network: libtorch's
// CardsForward (CardsStackedForward, what CUDA runs) against the CPU's CardsKernel
// (CardsKernelForward, the CPU evaluator's), side by side in one binary.
template <typename MakeForward>
void CardsForwardOnly(benchmark::State& state, MakeForward make) {
  c10::InferenceMode guard;
  at::set_num_threads(1);
  const int64_t rows = state.range(0);
  const NetworkShape shape = CardsBenchShape();
  std::unique_ptr<Forward> forward = make(shape);
  forward->Refresh(ModelSnapshot::FromNetworks(CardsNetworks(), 1));
  const Requests requests = MakeRequests(static_cast<int>(rows), {0});
  at::Tensor x = at::zeros({rows * shape.input_size});
  at::Tensor mask = at::zeros({rows * shape.num_actions});
  for (int64_t r = 0; r < rows; ++r) {
    std::copy(requests.features[r].begin(), requests.features[r].end(),
              x.data_ptr<float>() + r * shape.input_size);
    for (int64_t a = 0; a < shape.num_actions; ++a) {
      mask[r * shape.num_actions + a] = static_cast<float>(requests.list[r].legal_mask >> a & 1);
    }
  }
  // What the CPU backend calls: the legal masks beside the rows (libtorch's forward ignores them).
  for (auto _ : state) {
    benchmark::DoNotOptimize(forward->RunLegal(x, mask, {0}, rows).data_ptr<float>());
  }
  SetPerCall(state, state.iterations(), state.iterations() * rows);
}
void BM_CardsTorchForward(benchmark::State& state) {
  CardsForwardOnly(state, [](const NetworkShape& shape) {
    return std::make_unique<CardsStackedForward>(at::kCPU, shape);
  });
}
void BM_CardsKernelForward(benchmark::State& state) {
  CardsForwardOnly(state, [](const NetworkShape& shape) {
    return std::make_unique<CardsKernelForward>(shape, 1024);
  });
}
BENCHMARK(BM_CardsTorchForward)->RangeMultiplier(4)->Range(1, 1024);
BENCHMARK(BM_CardsKernelForward)->RangeMultiplier(4)->Range(1, 1024);

// Mixed batches of `rows` rows over several networks: one fused forward vs one forward per
// network (the earlier engine's split).
void MixedBatch(benchmark::State& state, Device device, bool split, int networks) {
  const int rows = static_cast<int>(state.range(0));
  InferenceConfig config;
  config.device = device;
  auto evaluator = MakeBatchedEvaluator(Store(), config);
  if (!evaluator.ok())
    return state.SkipWithError(std::string(evaluator.status().message()).c_str());
  traversal::SplitByNetworkEvaluator splitter(evaluator->get());
  traversal::Evaluator* target =
      split ? static_cast<traversal::Evaluator*>(&splitter) : evaluator->get();
  std::vector<int> ids;
  for (int n = 0; n < networks; ++n) ids.push_back(n);
  Requests requests = MakeRequests(rows, ids);
  for (auto _ : state) target->Evaluate(requests.list);
  SetPerCall(state, state.iterations(), state.iterations() * rows);
}

void RegisterDeviceBenchmarks(Device device) {
  const std::string prefix = device == Device::kCpu ? "" : "Cuda";
  benchmark::RegisterBenchmark(("BM_OneRowPolicyCall" + prefix).c_str(),
                               [device](benchmark::State& s) { OneRowPolicyCall(s, device); });
  // The default precision (auto), and fp32 throughout.
  benchmark::RegisterBenchmark(
      ("BM_BatchedForward" + prefix).c_str(),
      [device](benchmark::State& s) { BatchedForward(s, device, Precision::kAuto); })
      ->RangeMultiplier(2)
      ->Range(1, 1024);
  benchmark::RegisterBenchmark(
      ("BM_BatchedForwardFp32" + prefix).c_str(),
      [device](benchmark::State& s) { BatchedForward(s, device, Precision::kFp32); })
      ->RangeMultiplier(2)
      ->Range(1, 1024);
  for (int networks : {2, 3}) {
    for (bool split : {false, true}) {
      const std::string name =
          "BM_Mixed" + std::to_string(networks) + "Networks" + (split ? "Split" : "Fused") + prefix;
      benchmark::RegisterBenchmark(name.c_str(),
                                   [device, split, networks](benchmark::State& s) {
                                     MixedBatch(s, device, split, networks);
                                   })
          ->Arg(16)
          ->Arg(64)
          ->Arg(256);
    }
  }
}

}  // namespace
}  // namespace lcfr::inference

int main(int argc, char** argv) {
  at::set_num_threads(1);
  lcfr::inference::RegisterDeviceBenchmarks(lcfr::inference::Device::kCpu);
  if (torch::cuda::is_available()) {
    lcfr::inference::RegisterDeviceBenchmarks(lcfr::inference::Device::kCuda);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
