// The learner's fitting step (training/learner.h) against the GEMM floor of its own shapes: a
// step of `rows` rows (draw and encode the batch, forward, loss, backward, clipping, Adam) next to
// the matrix products alone that its forward and backward need (for each layer X.W, and dY.W^T
// and dY^T.X), into preallocated buffers. The ratio is what the step spends beyond arithmetic.
//
//   build/benchmarks/bench_learner [--benchmark_filter=...]
//
// Shapes: Leduc with configs/leduc.yaml's MLP (64x3), and Lost Cities with the cards network of
// configs/default.yaml and configs/strong.yaml (128x2); 512 and 2,048 rows (and 1,024 for the
// cards network). One intra-op thread. The memory holds 50,000 samples of states reached by
// uniform random play. Counters: per_step (wall time of one step) and per_row.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>
#include <c10/core/InferenceMode.h>

#include <memory>
#include <vector>

#include "base/rng.h"
#include "engine/leduc.h"
#include "engine/lost_cities.h"
#include "inference/networks.h"
#include "training/compose.h"
#include "training/distributed.h"
#include "training/learner.h"
#include "training/memory.h"
#include "traversal/samples.h"

namespace lcfr::training {
namespace {

constexpr int64_t kMemorySamples = 50000;

// A memory of `kMemorySamples` samples of the states uniform random play reaches, with random
// regret-like targets and iterations 1-100 (so that linear weighting does its work).
template <engine::Game G>
std::unique_ptr<SampleMemory> RandomPlayMemory(const G& game, const FeatureEncoder& encoder) {
  auto memory = std::make_unique<SampleMemory>(kMemorySamples, encoder, Retention::kReservoir);
  traversal::SampleBuffer buffer(encoder.shape());
  std::vector<float> features(static_cast<size_t>(game.EncodingSize()));
  Rng rng(7);
  while (static_cast<int64_t>(buffer.size()) < kMemorySamples) {
    typename G::State state = game.Deal(rng);
    while (!game.IsTerminal(state) && static_cast<int64_t>(buffer.size()) < kMemorySamples) {
      const uint32_t legal = game.LegalMask(state);
      const typename G::View view = game.MoverView(state);
      game.Encode(view, features);
      const size_t i =
          buffer.Add(features, std::as_bytes(std::span(&view, 1)), legal, 1.0f,
                     static_cast<int32_t>(1 + rng.Next() % 100), game.CurrentPlayer(state), 0);
      for (float& t : buffer.target(i)) t = static_cast<float>(rng.UniformDouble() * 2 - 1);
      std::vector<int> actions;
      for (int a = 0; a < game.num_actions(); ++a) {
        if (legal >> a & 1) actions.push_back(a);
      }
      game.ApplyUnchecked(state, actions[rng.Uniform(static_cast<uint32_t>(actions.size()))]);
    }
  }
  memory->Add(buffer, rng);
  return memory;
}

// The networks of configs/leduc.yaml (MLP 64x3) and of configs/default.yaml (cards 128x2).
inference::NetworkConfig Mlp64x3() {
  inference::NetworkConfig config;
  config.hidden_width = 64;
  config.hidden_layers = 3;
  return config;
}

inference::NetworkConfig Cards128x2() {
  inference::NetworkConfig config;
  config.architecture = inference::Architecture::kCards;
  config.hidden_width = 128;
  config.hidden_layers = 2;
  return config;
}

// One game's fixture: its networks and a memory of its samples, built once.
struct Fixture {
  inference::NetworkShape shape;
  std::unique_ptr<FeatureEncoder> encoder;
  std::unique_ptr<SampleMemory> memory;
  // The rows each layer sees in a batch of one row (the cards network runs its encoder and its
  // card head once per colour).
  std::vector<int64_t> rows_per_layer;
};

template <engine::Game G>
Fixture MakeFixture(const G& game, GameId id, const inference::NetworkConfig& network) {
  Fixture f;
  f.shape = NetworkShapeOf(game, id, network);
  f.encoder = std::make_unique<GameFeatureEncoder<G>>(game);
  f.memory = RandomPlayMemory(game, *f.encoder);
  const auto nets = inference::NetworkSet::Create(f.shape, 1);
  const auto& layers = nets.nets[0]->layers();
  for (size_t l = 0; l < layers.size(); ++l) {
    int64_t n = 1;
    if (f.shape.config.architecture == inference::Architecture::kCards) {
      const size_t encoder = layers.size() - 4;
      if (l < encoder || l == encoder + 1 || l == encoder + 2) n = f.shape.cards.colors;
    }
    f.rows_per_layer.push_back(n);
  }
  return f;
}

const Fixture& Leduc() {
  static const engine::LeducPoker game;
  static const Fixture f = MakeFixture(game, GameId::kLeduc, Mlp64x3());
  return f;
}

const Fixture& Cards() {
  static const engine::LostCities game;
  static const Fixture f = MakeFixture(game, GameId::kLostCities, Cards128x2());
  return f;
}

// Counters for `steps` steps of `rows` rows in the timed loop.
void SetPerStep(benchmark::State& state, int64_t steps, int64_t rows) {
  const auto inverse_rate = benchmark::Counter::kIsRate | benchmark::Counter::kInvert;
  state.counters["per_step"] = benchmark::Counter(static_cast<double>(steps), inverse_rate);
  state.counters["per_row"] = benchmark::Counter(static_cast<double>(steps * rows), inverse_rate);
}

// The real path: Learner::Fit, as the trainer calls it for an advantage network (masked MSE,
// linear weighting, clipping), 20 steps a call, timed per step.
void FitStep(benchmark::State& state, const Fixture& f, Loss loss) {
  at::set_num_threads(1);
  const int64_t rows = state.range(0);
  constexpr int kSteps = 20;
  OptimizerConfig config;
  config.batch_size = static_cast<int>(rows);
  Communicator single;
  Learner learner(config, f.shape.input_size, f.shape.num_actions, false, single);
  auto nets = inference::NetworkSet::Create(f.shape, 1);
  Rng rng(3);
  for (auto _ : state) {
    benchmark::DoNotOptimize(learner.Fit(nets, 0, *f.memory, kSteps, loss, rng));
  }
  SetPerStep(state, state.iterations() * kSteps, rows);
}

// The floor: for every layer the forward product and the two of its backward (the first layer's
// input gradient is not needed), at the layer's own row count, into preallocated buffers.
void GemmFloor(benchmark::State& state, const Fixture& f) {
  c10::InferenceMode guard;
  at::set_num_threads(1);
  const int64_t rows = state.range(0);
  const auto nets = inference::NetworkSet::Create(f.shape, 1);
  const auto& layers = nets.nets[0]->layers();
  std::vector<at::Tensor> w, x, y, dy, dw, dx;
  for (size_t l = 0; l < layers.size(); ++l) {
    const int64_t n = rows * f.rows_per_layer[l];
    const int64_t in = layers[l]->weight.size(1), out = layers[l]->weight.size(0);
    w.push_back(layers[l]->weight.detach().clone());  // [out, in]
    x.push_back(at::randn({n, in}));
    y.push_back(at::empty({n, out}));
    dy.push_back(at::randn({n, out}));
    dw.push_back(at::empty({out, in}));
    dx.push_back(at::empty({n, in}));
  }
  for (auto _ : state) {
    for (size_t l = 0; l < w.size(); ++l) at::mm_out(y[l], x[l], w[l].t());
    for (size_t l = w.size(); l-- > 0;) {
      at::mm_out(dw[l], dy[l].t(), x[l]);
      if (l > 0) at::mm_out(dx[l], dy[l], w[l]);
    }
    benchmark::DoNotOptimize(dw[0].data_ptr<float>());
  }
  SetPerStep(state, state.iterations(), rows);
}

void BM_LeducFitStep(benchmark::State& state) { FitStep(state, Leduc(), Loss::kMaskedMse); }
void BM_LeducGemmFloor(benchmark::State& state) { GemmFloor(state, Leduc()); }
void BM_CardsFitStep(benchmark::State& state) { FitStep(state, Cards(), Loss::kMaskedMse); }
void BM_CardsGemmFloor(benchmark::State& state) { GemmFloor(state, Cards()); }

BENCHMARK(BM_LeducFitStep)->Arg(512)->Arg(2048)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LeducGemmFloor)->Arg(512)->Arg(2048)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CardsFitStep)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CardsGemmFloor)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lcfr::training

BENCHMARK_MAIN();
