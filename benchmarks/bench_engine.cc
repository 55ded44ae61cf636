// Engine microbenchmarks: encode + legal mask, apply + undo, and full random playouts.
// Each benchmark cycles through a fixed pool of states reached by seeded random playouts, so
// the branch predictor sees realistic variety rather than one state.
#include <benchmark/benchmark.h>

#include <bit>
#include <vector>

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

}  // namespace
}  // namespace lcfr::engine

BENCHMARK_MAIN();
