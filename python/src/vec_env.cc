#include "python/src/vec_env.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "base/stream_cat.h"
#include "base/threads.h"

namespace lcfr::python {

absl::StatusOr<std::unique_ptr<VecEnv>> VecEnv::Create(const VecEnvOptions& options) {
  if (options.num_envs < 1 || options.num_envs > (1 << 24)) {
    return absl::InvalidArgumentError(
        StreamCat("num_envs: ", options.num_envs, " is not in [1, 16777216]"));
  }
  if (options.threads < 1 || options.threads > 1024) {
    return absl::InvalidArgumentError(
        StreamCat("threads: ", options.threads, " is not in [1, 1024]"));
  }
  if (options.learner_seat < -1 || options.learner_seat > 1) {
    return absl::InvalidArgumentError("learner_seat: 0, 1 or 'alternate'");
  }
  if (absl::Status s = engine::Validate(options.rules); !s.ok()) return s;
  if (!options.opponent_bot.empty()) {
    if (absl::StatusOr<std::unique_ptr<play::Bot>> bot = play::MakeBot(options.opponent_bot);
        !bot.ok()) {
      return absl::InvalidArgumentError(
          StreamCat("opponent: ", std::string(bot.status().message())));
    }
  }
  if (options.opponent_agent && !(options.opponent_agent->rules() == options.rules)) {
    return absl::InvalidArgumentError(StreamCat(
        "opponent: the agent plays the rules (", engine::ToString(options.opponent_agent->rules()),
        "), not the environment's (", engine::ToString(options.rules), ")"));
  }
  std::unique_ptr<VecEnv> env(new VecEnv(options));
  env->Reset();
  return env;
}

VecEnv::VecEnv(const VecEnvOptions& options)
    : options_(options),
      game_(options.rules),
      n_(options.num_envs),
      has_opponent_(!options.opponent_bot.empty() || options.opponent_agent != nullptr),
      envs_(options.num_envs),
      observations_(static_cast<size_t>(n_) * game_.EncodingSize()),
      legal_(static_cast<size_t>(n_) * game_.num_actions()),
      players_(n_),
      rewards_(2 * static_cast<size_t>(n_)),
      dones_(n_),
      final_scores_(2 * static_cast<size_t>(n_)),
      learner_seats_(n_) {
  if (!options.opponent_bot.empty()) {
    for (int t = 0; t < options.threads; ++t) bots_.push_back(*play::MakeBot(options.opponent_bot));
  }
}

template <typename Body>
void VecEnv::ForEachEnv(const Body& body) {
  const int threads = std::min(options_.threads, n_);
  if (threads <= 1) {
    for (int i = 0; i < n_; ++i) body(i, 0);
    return;
  }
  RunOnThreads(threads, [&](int t) {
    const int begin = static_cast<int>(int64_t{n_} * t / threads);
    const int end = static_cast<int>(int64_t{n_} * (t + 1) / threads);
    for (int i = begin; i < end; ++i) body(i, t);
  });
}

void VecEnv::Deal(int i) {
  Env& env = envs_[i];
  Rng deal(DeriveSeed({options_.seed, static_cast<uint64_t>(i), static_cast<uint64_t>(env.game)}));
  env.deck = game_.ShuffledDeck(deal);
  env.state = *game_.DealFromDeck(env.deck);
  env.actions.clear();
  env.learner = options_.learner_seat >= 0 ? options_.learner_seat : static_cast<int>(env.game % 2);
  learner_seats_[i] = static_cast<int8_t>(env.learner);
  ++env.game;
}

void VecEnv::Reset() {
  const std::lock_guard<std::mutex> lock(mutex_);
  ForEachEnv([&](int i, int) {
    envs_[i].game = 0;
    envs_[i].rng = Rng(DeriveSeed({options_.seed, static_cast<uint64_t>(i), 0x6f70706fULL}));
    Deal(i);
    dones_[i] = 0;
    rewards_[2 * i] = rewards_[2 * i + 1] = 0;
    final_scores_[2 * i] = final_scores_[2 * i + 1] = 0;
  });
  games_finished_ = 0;
  LetOpponentsMove();
  ForEachEnv([&](int i, int) { WriteObservation(i); });
}

bool VecEnv::OpponentToMove(int i) const {
  const Env& env = envs_[i];
  return has_opponent_ && !engine::LostCities::IsTerminal(env.state) &&
         env.state.player != env.learner;
}

void VecEnv::ApplyAndMaybeRestart(int i, int action) {
  Env& env = envs_[i];
  game_.ApplyUnchecked(env.state, action);
  env.actions.push_back(action);
  if (!engine::LostCities::IsTerminal(env.state)) return;
  dones_[i] = 1;
  for (int p = 0; p < 2; ++p) {
    final_scores_[2 * i + p] = env.state.score[p];
    rewards_[2 * i + p] = static_cast<float>(engine::LostCities::Payoff(env.state, p));
  }
  Deal(i);
}

void VecEnv::LetBotMove(int i, int thread) {
  while (OpponentToMove(i)) {
    ApplyAndMaybeRestart(i, bots_[thread]->ActOnState(game_, envs_[i].state, envs_[i].rng));
  }
}

void VecEnv::LetOpponentsMove() {
  if (!has_opponent_) return;
  if (!bots_.empty()) {
    ForEachEnv([&](int i, int t) { LetBotMove(i, t); });
    return;
  }
  // An agent: every environment waiting for it in one batch, until none waits.
  for (;;) {
    waiting_.clear();
    for (int i = 0; i < n_; ++i) {
      if (OpponentToMove(i)) waiting_.push_back(i);
    }
    if (waiting_.empty()) return;
    batch_states_.resize(waiting_.size());
    batch_rngs_.resize(waiting_.size());
    batch_actions_.resize(waiting_.size());
    for (size_t k = 0; k < waiting_.size(); ++k) {
      batch_states_[k] = &envs_[waiting_[k]].state;
      batch_rngs_[k] = &envs_[waiting_[k]].rng;
    }
    options_.opponent_agent->ActBatch(batch_states_, batch_rngs_, batch_actions_);
    for (size_t k = 0; k < waiting_.size(); ++k) {
      ApplyAndMaybeRestart(waiting_[k], batch_actions_[k]);
    }
  }
}

void VecEnv::WriteObservation(int i) {
  const engine::State& s = envs_[i].state;
  const size_t e = game_.EncodingSize(), a = game_.num_actions();
  game_.Encode(s, std::span<float>(observations_.data() + i * e, e));
  const uint32_t mask = game_.LegalMask(s);
  uint8_t* row = legal_.data() + i * a;
  for (size_t k = 0; k < a; ++k) row[k] = (mask >> k) & 1;
  players_[i] = static_cast<int8_t>(s.player);
}

absl::Status VecEnv::Step(const int32_t* actions) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const int a = game_.num_actions();
  for (int i = 0; i < n_; ++i) {
    const int32_t action = actions[i];
    // The engine's own mask: the buffers are the caller's to read, never to trust.
    if (action < 0 || action >= a || !((game_.LegalMask(envs_[i].state) >> action) & 1)) {
      const engine::State& s = envs_[i].state;
      std::string legal;
      for (int k : game_.LegalActions(s)) legal += (legal.empty() ? "" : ", ") + std::to_string(k);
      return absl::InvalidArgumentError(StreamCat("step: environment ", i, ": action ", action,
                                                  " is not legal there (legal: ", legal, ")"));
    }
  }
  const bool batched_opponent = options_.opponent_agent != nullptr;
  // One pass over the games (a bot opponent moves in it too); an agent's moves are batched over
  // all games between the learner's actions and the observations.
  ForEachEnv([&](int i, int t) {
    dones_[i] = 0;
    rewards_[2 * i] = rewards_[2 * i + 1] = 0;
    ApplyAndMaybeRestart(i, actions[i]);
    if (batched_opponent) return;
    if (!bots_.empty()) LetBotMove(i, t);
    WriteObservation(i);
  });
  if (batched_opponent) {
    LetOpponentsMove();
    ForEachEnv([&](int i, int) { WriteObservation(i); });
  }
  for (int i = 0; i < n_; ++i) games_finished_ += dones_[i];
  return absl::OkStatus();
}

}  // namespace lcfr::python
