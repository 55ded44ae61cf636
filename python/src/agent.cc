#include "python/src/agent.h"

#include <utility>

#include "base/check.h"
#include "base/stream_cat.h"
#include "play/bots.h"
#include "play/policy_bot.h"
#include "search/config.h"
#include "search/player.h"
#include "training/compose.h"
#include "training/config.h"
#include "training/play_sources.h"
#include "training/shipped_models.h"

namespace lcfr::python {

absl::StatusOr<std::unique_ptr<Agent>> Agent::Load(const AgentOptions& o) {
  if (!o.model.empty() && !o.checkpoint.empty()) {
    return absl::InvalidArgumentError("Agent: a model or a checkpoint, not both");
  }
  if (o.rollouts < 0) {
    return absl::InvalidArgumentError(StreamCat("rollouts: ", o.rollouts, " is negative"));
  }
  std::string model = o.model;
  if (o.model.empty() && o.checkpoint.empty()) {
    absl::StatusOr<std::string> shipped =
        training::ShippedModelFor(o.rules.value_or(engine::Rules{}));
    if (!shipped.ok()) return absl::InvalidArgumentError(shipped.status().message());
    model = *std::move(shipped);
  }
  absl::StatusOr<training::CheckpointPolicy> loaded =
      o.checkpoint.empty() ? training::LoadModelPolicy(model)
                           : training::LoadCheckpointPolicy(o.checkpoint);
  if (!loaded.ok()) return loaded.status();
  if (loaded->config.run.game != training::GameId::kLostCities) {
    return absl::InvalidArgumentError(StreamCat(loaded->directory, ": a ",
                                                training::GameName(loaded->config.run.game),
                                                " checkpoint, not a Lost Cities one"));
  }
  if (o.rules.has_value()) {
    if (absl::Status fits = play::CheckPlayerRules(loaded->config.rules, *o.rules); !fits.ok()) {
      return absl::InvalidArgumentError(StreamCat(loaded->directory, ": ", fits.message()));
    }
  }
  absl::StatusOr<play::PlayPolicy> play =
      training::ResolvePlayPolicy(loaded->config.play, o.policy, o.greedy);
  if (!play.ok()) return play.status();
  inference::InferenceConfig inference;
  {
    absl::StatusOr<inference::Device> device = inference::ParseDevice(o.device);
    if (device.ok()) device = inference::ResolveDevice(*device);
    if (!device.ok()) {
      return absl::InvalidArgumentError(
          StreamCat("device: ", std::string(device.status().message())));
    }
    inference.device = *device;
  }

  std::unique_ptr<Agent> agent(new Agent());
  agent->rules_ = loaded->config.rules;
  agent->game_ = engine::LostCities(agent->rules_);
  agent->play_ = *play;
  agent->device_ = inference.device;
  agent->directory_ = loaded->directory;
  agent->store_ = loaded->store;
  agent->rng_ = Rng(o.seed);
  absl::StatusOr<training::Evaluators> evaluators =
      training::MakeEvaluators(agent->store_, inference, 1);
  if (!evaluators.ok()) return evaluators.status();
  agent->evaluator_ = std::move(evaluators->front());

  const play::PlayCard& card = loaded->config.play;
  if (o.search.value_or(card.search)) {
    search::SearchConfig config;
    config.rollouts = o.rollouts > 0      ? o.rollouts
                      : card.rollouts > 0 ? card.rollouts
                                          : config.rollouts;
    std::shared_ptr<const inference::ModelStore> rollout_store;
    if (!card.rollout_model.empty()) {
      // A model's card speaks of paths beside the model's file; a checkpoint's, of its directory.
      std::string dir = loaded->directory;
      if (o.checkpoint.empty()) {
        const size_t slash = model.find_last_of('/');
        dir = slash == std::string::npos ? "." : model.substr(0, slash);
      }
      config.rollout_model =
          card.rollout_model.front() == '/' ? card.rollout_model : dir + "/" + card.rollout_model;
      absl::StatusOr<std::shared_ptr<const inference::ModelStore>> rollouts =
          training::LoadRolloutModel(config.rollout_model, agent->rules_);
      if (!rollouts.ok()) {
        return absl::InvalidArgumentError(
            StreamCat("the rollout model: ", std::string(rollouts.status().message())));
      }
      rollout_store = *std::move(rollouts);
    }
    search::Blueprint blueprint;
    blueprint.play = *play;
    blueprint.SetValue(loaded->config.traversal.cfr);
    absl::StatusOr<std::unique_ptr<search::SearchPlayer>> player = training::MakeSearchPlayer(
        agent->game_, blueprint, config, agent->store_, rollout_store, inference);
    if (!player.ok()) return player.status();
    agent->bot_ = *std::move(player);
    agent->search_ = agent->bot_.get();
    agent->name_ = StreamCat("search over ", loaded->directory, " (", play->Name(), ", ",
                             config.rollouts, " rollouts a decision)");
  } else {
    agent->client_ = traversal::PolicyClient::Direct(agent->evaluator_.get());
    agent->bot_ = std::make_unique<play::PolicyBot>(&agent->client_, *play, agent->game_);
    agent->name_ = StreamCat(loaded->directory, " (", play->Name(), ")");
  }
  return agent;
}

void Agent::ActBatch(std::span<const engine::State* const> states, std::span<Rng*> rngs,
                     std::span<int> actions) {
  LCFR_CHECK_EQ(states.size(), actions.size());
  LCFR_CHECK_EQ(states.size(), rngs.size());
  const std::lock_guard<std::mutex> lock(mutex_);
  const size_t n = states.size();
  if (search_ != nullptr) {
    for (size_t i = 0; i < n; ++i) {
      actions[i] = search_->ActOnState(game_, *states[i], rngs[i] ? *rngs[i] : rng_);
    }
    return;
  }
  const size_t e = game_.EncodingSize(), a = game_.num_actions();
  features_.resize(n * e);
  outputs_.resize(n * a);
  probabilities_.resize(a);
  requests_.resize(n);
  legal_.resize(n);
  queries_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const engine::View view = game_.MoverView(*states[i]);
    legal_[i] = game_.LegalMask(view);
    const std::span<float> features(features_.data() + i * e, e);
    game_.Encode(view, features);
    queries_[i] = play::QueryFor(play_, view.player);
    requests_[i] = {queries_[i].network, queries_[i].head, features, legal_[i],
                    std::span<float>(outputs_.data() + i * a, a)};
  }
  evaluator_->Evaluate(requests_);
  for (size_t i = 0; i < n; ++i) {
    play::PolicyFromOutputs(queries_[i], requests_[i].output, legal_[i], probabilities_);
    actions[i] =
        play::ChooseAction(probabilities_, legal_[i], play_.greedy, rngs[i] ? *rngs[i] : rng_);
  }
}

int Agent::Act(const engine::State& state) {
  const engine::State* states[] = {&state};
  Rng* rngs[] = {nullptr};
  int action = -1;
  ActBatch(states, rngs, std::span<int>(&action, 1));
  return action;
}

std::vector<float> Agent::Probabilities(const engine::State& state) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const engine::View view = game_.MoverView(state);
  const uint32_t legal = game_.LegalMask(view);
  std::vector<float> features(game_.EncodingSize()), outputs(game_.num_actions()),
      probabilities(game_.num_actions());
  game_.Encode(view, features);
  const play::PolicyQuery query = play::QueryFor(play_, view.player);
  const traversal::PolicyRequest request{query.network, query.head, features, legal, outputs};
  evaluator_->Evaluate(std::span<const traversal::PolicyRequest>(&request, 1));
  play::PolicyFromOutputs(query, outputs, legal, probabilities);
  return probabilities;
}

}  // namespace lcfr::python
