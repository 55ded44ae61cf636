// lcfr.Agent's core: a trained model or checkpoint playing its policy (the model card's, or the one
// asked for), greedy or sampled, with or without the play-time search, on CPU or CUDA; one decision
// or a batch of them in one forward.
#ifndef LCFR_PYTHON_SRC_AGENT_H_
#define LCFR_PYTHON_SRC_AGENT_H_

#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/rng.h"
#include "engine/lost_cities.h"
#include "inference/batched_evaluator.h"
#include "play/bots.h"
#include "play/play_policy.h"
#include "play/policy_bot.h"
#include "training/checkpoint.h"
#include "traversal/fiber_batcher.h"

namespace lcfr::python {

struct AgentOptions {
  std::string
      model;  // a networks file (models/lost-cities.pt); "" with no checkpoint: the shipped one
  std::string checkpoint;  // a checkpoint or run directory
  // The game's rules: with no model or checkpoint, the shipped model of these rules
  // (training/shipped_models.h); else they must be the model's. Unset: the classic rules' model.
  std::optional<engine::Rules> rules;
  std::string policy;          // "current" or "average"; "" = the model card's
  std::optional<bool> greedy;  // unset: the card's
  std::optional<bool> search;  // unset: the card's
  int rollouts =
      0;  // with the search: rollouts a decision (0: the card's, or the search's default)
  std::string device = "cpu";  // cpu, cuda or auto
  uint64_t seed = 0;           // the agent's own random stream (sampled play, the search)
};

class Agent {
 public:
  // Errors: the files (naming them), the policy, the device; as the CLI words them.
  static absl::StatusOr<std::unique_ptr<Agent>> Load(const AgentOptions& options);
  Agent(const Agent&) = delete;  // its network player points into it
  Agent& operator=(const Agent&) = delete;

  const engine::Rules& rules() const { return rules_; }
  const play::PlayPolicy& play() const { return play_; }
  bool searching() const { return search_ != nullptr; }
  inference::Device device() const { return device_; }
  const std::string& name() const { return name_; }
  const std::string& directory() const { return directory_; }
  const std::shared_ptr<inference::ModelStore>& store() const { return store_; }

  // Thread-safe: each call (and a match's use of bot(), under Lock()) runs alone.
  std::unique_lock<std::mutex> Lock() { return std::unique_lock<std::mutex>(mutex_); }

  // The action for the player to move in each state (not terminal, of the agent's rules), drawing
  // from `rng` (one per state; null: the agent's own stream). Without search, every state's
  // network row goes into one evaluator call; with search, one decision after another.
  void ActBatch(std::span<const engine::State* const> states, std::span<Rng*> rngs,
                std::span<int> actions);
  int Act(const engine::State& state);
  // The distribution its network policy plays (before greedy play and search), num_actions
  // entries, 0 at illegal actions.
  std::vector<float> Probabilities(const engine::State& state);
  // The agent as a player of matches (a network player, or the searching one); hold Lock().
  play::Bot& bot() { return *bot_; }

 private:
  Agent() = default;
  engine::Rules rules_;
  engine::LostCities game_;  // of rules_
  play::PlayPolicy play_;
  inference::Device device_ = inference::Device::kCpu;
  std::string name_;
  std::string directory_;
  std::shared_ptr<inference::ModelStore> store_;
  std::unique_ptr<traversal::Evaluator> evaluator_;  // the batches' and the network player's
  traversal::PolicyClient client_;                   // the network player's, direct
  std::unique_ptr<play::Bot> bot_;  // plays matches: the network player or the search
  play::Bot* search_ = nullptr;     // bot_ when it searches
  Rng rng_;
  std::mutex mutex_;
  // Batch buffers, reused.
  std::vector<float> features_, outputs_, probabilities_;
  std::vector<traversal::PolicyRequest> requests_;
  std::vector<uint32_t> legal_;
  std::vector<play::PolicyQuery> queries_;
};

}  // namespace lcfr::python

#endif  // LCFR_PYTHON_SRC_AGENT_H_
