// Engine microbenchmarks: encode + legal mask, apply + undo, full random playouts, and the loop
// of a batched environment.
// Each benchmark cycles through a fixed pool of states reached by seeded random playouts, so
// the branch predictor sees realistic variety rather than one state.
#include <benchmark/benchmark.h>

#include <bit>
#include <span>
#include <vector>

#include "base/threads.h"
#include "engine/lost_cities.h"

namespace lcfr::engine {
namespace {

int RandomLegal(ActionMask mask, Rng& rng) {
  uint32_t k = rng.Uniform(static_cast<uint32_t>(std::popcount(mask)));
  while (k-- > 0) mask &= mask - 1;
  return std::countr_zero(mask);
}

// 4096 non-terminal states from random classic games, with one legal action each.
struct Pool {
  std::vector<State> states;
  std::vector<int> actions;
};

const Pool& GetPool() {
  static const Pool pool = [] {
    Pool p;
    const LostCities game;
    Rng rng(2024);
    while (p.states.size() < 4096) {
      State s = game.Deal(rng);
      while (!LostCities::IsTerminal(s)) {
        const int a = RandomLegal(game.LegalMask(s), rng);
        if (rng.Uniform(8) == 0) {
          p.states.push_back(s);
          p.actions.push_back(a);
        }
        game.ApplyUnchecked(s, a);
      }
    }
    return p;
  }();
  return pool;
}

void BM_EncodeAndLegal(benchmark::State& state) {
  const LostCities game;
  const Pool& pool = GetPool();
  std::vector<float> out(game.EncodingSize());
  size_t i = 0;
  for (auto _ : state) {
    const State& s = pool.states[i++ & 4095];
    const ActionMask mask = game.LegalMask(s);
    game.Encode(s, out);
    benchmark::DoNotOptimize(mask);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["calls_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EncodeAndLegal);

void BM_Encode(benchmark::State& state) {
  const LostCities game;
  const Pool& pool = GetPool();
  std::vector<float> out(game.EncodingSize());
  size_t i = 0;
  for (auto _ : state) {
    game.Encode(pool.states[i++ & 4095], out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["calls_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Encode);

void BM_LegalMask(benchmark::State& state) {
  const LostCities game;
  const Pool& pool = GetPool();
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(game.LegalMask(pool.states[i++ & 4095]));
  }
  state.counters["calls_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LegalMask);

// Apply + undo in place on one working state per pool entry (as a traversal does).
void BM_ApplyUndo(benchmark::State& state) {
  const LostCities game;
  const Pool& pool = GetPool();
  std::vector<State> work = pool.states;
  size_t i = 0;
  for (auto _ : state) {
    const size_t j = i++ & 4095;
    State& s = work[j];
    const int a = pool.actions[j];
    const UndoRecord undo = game.ApplyUnchecked(s, a);
    benchmark::DoNotOptimize(s);
    game.Undo(s, a, undo);
    benchmark::DoNotOptimize(s);
  }
  state.counters["pairs_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ApplyUndo);

// For comparison: the copy a traversal would make instead of undoing.
void BM_StateCopy(benchmark::State& state) {
  const Pool& pool = GetPool();
  State s{};
  size_t i = 0;
  for (auto _ : state) {
    s = pool.states[i++ & 4095];
    benchmark::DoNotOptimize(s);
  }
  state.counters["copies_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["state_bytes"] = sizeof(State);
}
BENCHMARK(BM_StateCopy);

// A whole game from a fresh deal, uniformly random legal actions.
void BM_RandomPlayout(benchmark::State& state) {
  const LostCities game;
  Rng rng(7);
  int64_t decisions = 0;
  for (auto _ : state) {
    State s = game.Deal(rng);
    while (!LostCities::IsTerminal(s)) {
      game.ApplyUnchecked(s, RandomLegal(game.LegalMask(s), rng));
    }
    decisions += s.decisions;
    benchmark::DoNotOptimize(s.score);
  }
  state.counters["games_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["decisions_per_s"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RandomPlayout);

// The engine's own loop of a batched environment (the C++ reference of lcfr.VecEnv,
// benchmarks/python/bench_python.py): 4,096 games, and per decision the first legal action
// applied, a new deal where a game ended, the encoding and the legal mask written into rows of
// two buffers; the games split over `threads` threads (started per step, as VecEnv does).
void BM_StepLoop(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  constexpr int kGames = 4096;
  const LostCities game;
  const size_t e = game.EncodingSize(), a = game.num_actions();
  std::vector<State> games(kGames);
  std::vector<Rng> rngs;
  for (int i = 0; i < kGames; ++i) {
    rngs.emplace_back(static_cast<uint64_t>(i));
    games[i] = game.Deal(rngs[i]);
  }
  std::vector<float> observations(kGames * e);
  std::vector<uint8_t> legal(kGames * a);
  for (auto _ : state) {
    RunOnThreads(threads, [&](int t) {
      for (int i = kGames * t / threads; i < kGames * (t + 1) / threads; ++i) {
        State& s = games[i];
        game.ApplyUnchecked(s, std::countr_zero(game.LegalMask(s)));
        if (LostCities::IsTerminal(s)) s = game.Deal(rngs[i]);
        game.Encode(s, std::span<float>(observations.data() + i * e, e));
        const ActionMask mask = game.LegalMask(s);
        for (size_t k = 0; k < a; ++k) legal[i * a + k] = (mask >> k) & 1;
      }
    });
    benchmark::DoNotOptimize(observations.data());
    benchmark::ClobberMemory();
  }
  state.counters["decisions_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kGames, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_StepLoop)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace
}  // namespace lcfr::engine

BENCHMARK_MAIN();
