// The composition helpers shared by train, eval, sweep, play and agent: the one place where a
// configured game name becomes a game type, and where requested devices are resolved (the only
// hardware probe, made before any thread starts). Torch-free.
#ifndef LCFR_TRAINING_COMPOSE_H_
#define LCFR_TRAINING_COMPOSE_H_

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/kuhn.h"
#include "engine/leduc.h"
#include "engine/lost_cities.h"
#include "inference/batched_evaluator.h"
#include "search/config.h"
#include "search/player.h"
#include "training/config.h"

namespace lcfr::training {

// Calls fn(game) with the configured game (Lost Cities with config.rules, Kuhn or Leduc poker)
// and returns what it returns.
template <typename Fn>
decltype(auto) VisitGame(const TrainConfig& config, Fn&& fn) {
  switch (config.run.game) {
    case GameId::kKuhn: {
      const engine::KuhnPoker kuhn;
      return fn(kuhn);
    }
    case GameId::kLeduc: {
      const engine::LeducPoker leduc;
      return fn(leduc);
    }
    case GameId::kLostCities:
      break;
  }
  const engine::LostCities lost_cities(config.rules);
  return fn(lost_cities);
}

// The shape of the networks that play `game` with `config` (the game's encoding and actions,
// and for Lost Cities the rule dimensions the cards architecture reads its encoding by).
template <typename G>
inference::NetworkShape NetworkShapeOf(const G& game, GameId id,
                                       const inference::NetworkConfig& config) {
  inference::NetworkShape shape;
  shape.game = std::string(GameName(id));
  shape.encoding_version = game.EncodingVersion();
  shape.input_size = game.EncodingSize();
  shape.num_actions = game.num_actions();
  shape.config = config;
  if constexpr (std::is_same_v<G, engine::LostCities>) {
    if (config.architecture == inference::Architecture::kCards) {
      const engine::Rules& r = game.rules();
      shape.cards = {r.colors, r.ranks, r.wagers, r.min_rank, r.hand_size};
    }
  }
  return shape;
}

// The devices a run uses, resolved from its configuration (kCpu or kCuda each).
struct Devices {
  inference::Device inference = inference::Device::kCpu;
  inference::Device training = inference::Device::kCpu;
};

// Resolves inference.device and training.device; an error names the key and says why the
// device is not there.
absl::StatusOr<Devices> ResolveDevices(const TrainConfig& config);

// Every batched evaluator of a phase (one per worker), built here on the calling thread before
// any worker starts: the one place evaluators are made and the one error policy (a Status that
// says why; nothing half-built is handed out). `config.device` must be resolved (kCpu or kCuda).
using Evaluators = std::vector<std::unique_ptr<traversal::Evaluator>>;
absl::StatusOr<Evaluators> MakeEvaluators(std::shared_ptr<const inference::ModelStore> store,
                                          const inference::InferenceConfig& config, int count);

// The inference settings of a search's evaluators: `inference` with its rows per forward capped
// at the search's width, since a worker's batcher never sends more rows than it has fibers (the
// blueprint's own call sends one). Its staging is then sized by the width, not by max_rows.
inference::InferenceConfig ForSearch(const inference::InferenceConfig& inference,
                                     const search::SearchConfig& config);

// The memory a search holds at its largest, estimated before anything is built: `players`
// searching players (eval: one per game thread; agent and play: one), each of config.workers
// workers, and each worker with its fibers' stacks (config.width on each of its batchers: two
// when the rollouts have a model of their own) and an evaluator of each of `models` (its staging
// for config.width rows of every network, a copy of its weights). Measured against the process's
// size (docs/search.md, "Memory"), it errs on the high side: stacks are counted whole.
int64_t EstimateSearchBytes(const search::SearchConfig& config, int players,
                            std::span<const inference::ModelStore* const> models);
// OK when `bytes` fits in the memory the system has available (AvailableMemoryBytes; no check
// where that is unknown); otherwise a ResourceExhausted error that gives both figures and names
// `flags`, the options that set the size (e.g. "--workers and --search-width").
absl::Status CheckSearchMemory(int64_t bytes, const std::string& flags);

// A factory for TraversalRunner or PlayNetworkMatch that hands out `evaluators` by worker index,
// each once. `evaluators` must outlive the factory's calls.
traversal::EvaluatorFactory HandOut(Evaluators& evaluators);

// A searching player on `game` (lcfr agent, play): the model's evaluators (from `store`, one per
// search worker; null when no model plays) are built here on `inference`'s device (resolved: kCpu
// or kCuda), and the rollout model's from `rollout_store` (--rollout-model; null without one);
// the player owns them. What its workers would hold is checked against the memory available
// first (CheckSearchMemory).
absl::StatusOr<std::unique_ptr<search::SearchPlayer>> MakeSearchPlayer(
    const engine::LostCities& game, const search::Blueprint& blueprint,
    const search::SearchConfig& config, std::shared_ptr<const inference::ModelStore> store,
    std::shared_ptr<const inference::ModelStore> rollout_store = nullptr,
    const inference::InferenceConfig& inference = {});

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_COMPOSE_H_
