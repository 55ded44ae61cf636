// lcfr.VecEnv's core: N games stepped per call, their observations, legal masks, rewards and ends
// written into buffers the environment owns (the Python side sees them as NumPy arrays, no copy),
// games dealt anew as they end. Both seats learn, or one seat does and the other is played by a
// scripted bot or an agent (its decisions batched across the games in one forward a round).
// Deterministic given the seed, whatever the number of threads. Thread-safe: a step or reset runs
// alone (an agent opponent may serve several environments).
#ifndef LCFR_PYTHON_SRC_VEC_ENV_H_
#define LCFR_PYTHON_SRC_VEC_ENV_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/rng.h"
#include "engine/lost_cities.h"
#include "play/bots.h"
#include "python/src/agent.h"

namespace lcfr::python {

struct VecEnvOptions {
  int num_envs = 1;
  engine::Rules rules;
  uint64_t seed = 0;
  // With an opponent: the learner's seat, 0 or 1, or -1 to alternate it game by game (game k of an
  // environment: seat k % 2, so consecutive games swap seats).
  int learner_seat = -1;
  std::string opponent_bot;               // a scripted bot's name (play/bots.h), or ""
  std::shared_ptr<Agent> opponent_agent;  // or an agent; neither: both seats learn
  int threads = 1;
};

class VecEnv {
 public:
  // Errors: the options (naming them).
  static absl::StatusOr<std::unique_ptr<VecEnv>> Create(const VecEnvOptions& options);
  VecEnv(const VecEnv&) = delete;
  VecEnv& operator=(const VecEnv&) = delete;

  // Deals every environment its first game (the seed's) and writes the observations.
  void Reset();
  // Takes actions[i] in environment i (all checked first: nothing is applied when one is not
  // legal), lets the opponent move, deals a new game where one ended, writes the observations.
  absl::Status Step(const int32_t* actions);

  int num_envs() const { return n_; }
  const engine::LostCities& game() const { return game_; }
  bool has_opponent() const { return has_opponent_; }
  // Buffers, row i = environment i:
  float* observations() { return observations_.data(); }  // [N, encoding_size]
  uint8_t* legal() { return legal_.data(); }              // [N, num_actions], 1 = legal
  int8_t* players() { return players_.data(); }           // [N]: the seat to move
  float* rewards() { return rewards_.data(); }  // [N, 2]: each seat's score difference at an end
  uint8_t* dones() { return dones_.data(); }    // [N]: this step ended a game
  int32_t* final_scores() { return final_scores_.data(); }   // [N, 2]: the scores of that game
  int8_t* learner_seats() { return learner_seats_.data(); }  // [N]: with an opponent
  int64_t games_finished() const { return games_finished_; }
  // Environment i's game as it stands, its deck as dealt and its actions (for records).
  const engine::State& state(int i) const { return envs_[i].state; }
  const std::vector<engine::Card>& deck(int i) const { return envs_[i].deck; }
  const std::vector<int>& actions(int i) const { return envs_[i].actions; }

 private:
  struct Env {
    engine::State state;
    std::vector<engine::Card> deck;
    std::vector<int> actions;
    int64_t game = 0;  // games dealt so far in this environment
    Rng rng;           // the opponent's choices
    int learner = 0;   // the learner's seat in this game
  };
  explicit VecEnv(const VecEnvOptions& options);
  void Deal(int i);
  bool OpponentToMove(int i) const;
  // Applies `action` in environment i, and at an end records it and deals the next game.
  void ApplyAndMaybeRestart(int i, int action);
  // The bot of thread `thread` plays environment i until the learner is to move.
  void LetBotMove(int i, int thread);
  // Every environment's opponent moves until its learner is to move.
  void LetOpponentsMove();
  void WriteObservation(int i);
  // body(i) for every environment, the environments split into contiguous chunks over threads.
  template <typename Body>
  void ForEachEnv(const Body& body);

  VecEnvOptions options_;
  engine::LostCities game_;
  int n_;
  bool has_opponent_;
  std::vector<Env> envs_;
  std::vector<std::unique_ptr<play::Bot>> bots_;  // one per thread
  std::vector<float> observations_;
  std::vector<uint8_t> legal_;
  std::vector<int8_t> players_;
  std::vector<float> rewards_;
  std::vector<uint8_t> dones_;
  std::vector<int32_t> final_scores_;
  std::vector<int8_t> learner_seats_;
  int64_t games_finished_ = 0;
  std::mutex mutex_;  // Reset and Step
  // The agent opponent's batch, reused.
  std::vector<int> waiting_;
  std::vector<const engine::State*> batch_states_;
  std::vector<Rng*> batch_rngs_;
  std::vector<int> batch_actions_;
};

}  // namespace lcfr::python

#endif  // LCFR_PYTHON_SRC_VEC_ENV_H_
