// The trainer's evaluation of a Lost Cities model: its policies against bots
// (play/network_match.h), as metrics.jsonl reports them. Torch-free (toy games are evaluated
// exactly: training/exact_evaluation.h).
#ifndef LCFR_TRAINING_EVALUATION_H_
#define LCFR_TRAINING_EVALUATION_H_

#include <functional>
#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "engine/lost_cities.h"
#include "inference/batched_evaluator.h"
#include "inference/model_store.h"
#include "play/network_match.h"
#include "training/config.h"
#include "training/iteration_metrics.h"

namespace lcfr::training {

// A match's figures as metrics.jsonl reports them (policy "" = the default keys).
BotResult ToBotResult(const std::string& opponent, const std::string& policy,
                      const play::NetworkMatchResult& result);

// The trainer's evaluation of Lost Cities: for each of `config.policies`, `config.games` games
// against each of `config.opponents`, on `config.workers` threads whose evaluators are built by
// MakeEvaluators (training/compose.h) from `inference` (device resolved). The first policy's
// results also go under the default keys (policy ""). The seed of every match is `seed`, so all
// policies play the same deals. Errors name the opponent.
absl::StatusOr<std::vector<BotResult>> PlayEvaluationMatches(
    const engine::LostCities& game, std::shared_ptr<const inference::ModelStore> store,
    const inference::InferenceConfig& inference, const EvaluationConfig& config, uint64_t seed);

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_EVALUATION_H_
