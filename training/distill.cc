#include "training/distill.h"

#include <ATen/Parallel.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "base/atomic_file.h"
#include "base/check.h"
#include "base/rng.h"
#include "base/stream_cat.h"
#include "engine/lost_cities.h"
#include "inference/batched_evaluator.h"
#include "inference/model_store.h"
#include "inference/networks.h"
#include "play/policy_bot.h"
#include "training/compose.h"
#include "training/config.h"
#include "training/distributed.h"
#include "training/evaluation.h"
#include "training/learner.h"
#include "training/memory.h"
#include "training/model_files.h"
#include "traversal/evaluator.h"
#include "traversal/fiber_tasks.h"
#include "traversal/regret_matching.h"
#include "traversal/samples.h"

namespace lcfr::training {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kDistillStream = 0x64697374696c6cULL;  // "distill"
constexpr int kMaxActions = 32;                           // legal masks are 32 bits
constexpr int kWidth = 64;                                // games or states in flight per thread

// A decision of the teacher's games, as the networks read it.
struct Position {
  engine::View view;        // the mover's infoset
  engine::View value_view;  // what the value network reads (the infoset, or ESCHER's history)
  uint32_t legal = 0;
  int mover = 0;
};

// The raw outputs of the networks at a position (0 at illegal actions).
struct Outputs {
  std::array<float, kMaxActions> advantage{};  // the mover's advantage network
  std::array<float, kMaxActions> strategy{};   // the strategy network's logits
  std::array<float, kMaxActions> value{};      // the value network (when there is one)
};

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

absl::StatusOr<Evaluators> Fp32Evaluators(std::shared_ptr<const inference::ModelStore> store,
                                          int count) {
  inference::InferenceConfig inference;  // on the CPU, in fp32: the networks as trained
  inference.precision = inference::Precision::kFp32;
  return MakeEvaluators(std::move(store), inference, count);
}

// Every network's raw outputs at every position, batched over fibers.
absl::StatusOr<std::vector<Outputs>> AskNetworks(const engine::LostCities& game,
                                                 std::shared_ptr<const inference::ModelStore> store,
                                                 const std::vector<Position>& positions, bool value,
                                                 int workers) {
  absl::StatusOr<Evaluators> evaluators = Fp32Evaluators(std::move(store), workers);
  if (!evaluators.ok()) return evaluators.status();
  std::vector<Outputs> outputs(positions.size());
  const int n = game.num_actions();
  traversal::RunFiberTasks(
      HandOut(*evaluators), static_cast<int64_t>(positions.size()), workers, kWidth,
      [&](int64_t i, traversal::PolicyClient& policy) {
        const Position& p = positions[i];
        Outputs& o = outputs[i];
        std::vector<float> features(game.EncodingSize());
        game.Encode(p.view, features);
        policy.Evaluate(traversal::AdvantageNetwork(p.mover), traversal::Head::kRaw, features,
                        p.legal, std::span<float>(o.advantage.data(), n));
        policy.Evaluate(traversal::kStrategyNetwork, traversal::Head::kRaw, features, p.legal,
                        std::span<float>(o.strategy.data(), n));
        if (value) {
          game.Encode(p.value_view, features);
          policy.Evaluate(traversal::kValueNetwork, traversal::Head::kRaw, features, p.legal,
                          std::span<float>(o.value.data(), n));
        }
      });
  return outputs;
}

int64_t WeightsOf(const inference::NetworkShape& shape) {
  inference::PolicyNet net(shape);
  int64_t total = 0;
  for (const torch::Tensor& p : net->parameters()) total += p.numel();
  return total;
}

int Argmax(const std::array<float, kMaxActions>& p, uint32_t legal) {
  int best = std::countr_zero(legal);
  for (uint32_t m = legal; m; m &= m - 1) {
    const int a = std::countr_zero(m);
    if (p[a] > p[best]) best = a;
  }
  return best;
}

// Adds one position's agreement between the teacher's and the student's distributions under
// `head` to `sum`.
void Agree(const std::array<float, kMaxActions>& teacher,
           const std::array<float, kMaxActions>& student, uint32_t legal, int n,
           traversal::Head head, DistillAgreement& sum) {
  std::array<float, kMaxActions> p{}, q{};
  traversal::ApplyHead(std::span<const float>(teacher.data(), n), legal, head,
                       std::span<float>(p.data(), n));
  traversal::ApplyHead(std::span<const float>(student.data(), n), legal, head,
                       std::span<float>(q.data(), n));
  double tv = 0;
  for (uint32_t m = legal; m; m &= m - 1) {
    const int a = std::countr_zero(m);
    tv += std::abs(p[a] - q[a]);
  }
  sum.total_variation += tv / 2;
  sum.greedy += Argmax(p, legal) == Argmax(q, legal) ? 1.0 : 0.0;
}

}  // namespace

absl::Status DistillConfig::Validate() const {
  if (games < 2 || games > 10'000'000) {
    return absl::InvalidArgumentError(
        lcfr::StreamCat("--games must be in [2, 10000000], got ", games));
  }
  if (holdout_games < 1 || holdout_games >= games) {
    return absl::InvalidArgumentError(lcfr::StreamCat(
        "--holdout-games must be in [1, --games - 1] = [1, ", games - 1, "], got ", holdout_games));
  }
  if (steps < 1 || steps > 10'000'000) {
    return absl::InvalidArgumentError(
        lcfr::StreamCat("--steps must be in [1, 10000000], got ", steps));
  }
  if (hidden_width < 1 || hidden_width > 65536) {
    return absl::InvalidArgumentError(
        lcfr::StreamCat("--hidden-width must be in [1, 65536], got ", hidden_width));
  }
  if (hidden_layers < 0 || hidden_layers > 64) {
    return absl::InvalidArgumentError(
        lcfr::StreamCat("--hidden-layers must be in [0, 64], got ", hidden_layers));
  }
  if (workers < 1 || workers > 1024) {
    return absl::InvalidArgumentError(
        lcfr::StreamCat("--workers must be in [1, 1024], got ", workers));
  }
  return absl::OkStatus();
}

absl::StatusOr<DistillResult> Distill(const CheckpointPolicy& teacher, const DistillConfig& config,
                                      const std::string& out,
                                      const std::function<void(const std::string&)>& log) {
  if (absl::Status s = config.Validate(); !s.ok()) return s;
  auto say = [&log](const std::string& line) {
    if (log) log(line);
  };
  if (teacher.config.run.game != GameId::kLostCities) {
    return absl::InvalidArgumentError(lcfr::StreamCat(teacher.directory, ": a ",
                                                      GameName(teacher.config.run.game),
                                                      " model; distill takes a Lost Cities one"));
  }
  const absl::StatusOr<ModelFiles> files = ModelFilesOf(out, "--out");
  if (!files.ok()) return files.status();
  DistillResult result;
  result.networks_path = files->networks;
  result.config_path = files->config;

  const engine::LostCities game(teacher.config.rules);
  const traversal::Scheme scheme = teacher.config.traversal.cfr.scheme;
  const bool value = scheme == traversal::Scheme::kValue || scheme == traversal::Scheme::kEscher;
  const bool history = scheme == traversal::Scheme::kEscher;
  TrainConfig student_config = teacher.config;
  student_config.network.hidden_width = config.hidden_width;
  student_config.network.hidden_layers = config.hidden_layers;
  if (absl::Status s = Validate(student_config); !s.ok()) return s;
  const inference::NetworkShape teacher_shape =
      NetworkShapeOf(game, GameId::kLostCities, teacher.config.network);
  const inference::NetworkShape student_shape =
      NetworkShapeOf(game, GameId::kLostCities, student_config.network);
  result.student = student_shape.ToString();
  result.teacher_weights = WeightsOf(teacher_shape);
  result.student_weights = WeightsOf(student_shape);

  // The teacher's games: every decision, in game order.
  const Clock::time_point play_start = Clock::now();
  say(lcfr::StreamCat("distill: ", config.games, " games of the teacher's ", config.play.Name(),
                      " policy against itself ..."));
  std::vector<std::vector<Position>> per_game(config.games);
  {
    absl::StatusOr<Evaluators> evaluators = Fp32Evaluators(teacher.store, config.workers);
    if (!evaluators.ok()) return evaluators.status();
    traversal::RunFiberTasks(
        HandOut(*evaluators), config.games, config.workers, kWidth,
        [&](int64_t i, traversal::PolicyClient& policy) {
          Rng rng(DeriveSeed({config.seed, kDistillStream, static_cast<uint64_t>(i)}));
          engine::State s = game.Deal(rng);
          play::PolicyBot bot(&policy, config.play, game);
          std::vector<Position>& positions = per_game[i];
          while (!engine::LostCities::IsTerminal(s)) {
            Position& p = positions.emplace_back();
            game.MoverView(s, p.view);
            if (history) {
              game.HistoryView(s, p.value_view);
            } else {
              p.value_view = p.view;
            }
            p.legal = game.LegalMask(s);
            p.mover = engine::LostCities::CurrentPlayer(s);
            game.ApplyUnchecked(s, bot.ActOnState(game, s, rng));
          }
        });
  }
  const int train_games = config.games - config.holdout_games;
  std::vector<Position> train, holdout;
  for (int i = 0; i < config.games; ++i) {
    std::vector<Position>& to = i < train_games ? train : holdout;
    to.insert(to.end(), per_game[i].begin(), per_game[i].end());
  }
  per_game = {};
  result.train_states = static_cast<int64_t>(train.size());
  result.holdout_states = static_cast<int64_t>(holdout.size());
  absl::StatusOr<std::vector<Outputs>> targets =
      AskNetworks(game, teacher.store, train, value, config.workers);
  if (!targets.ok()) return targets.status();
  absl::StatusOr<std::vector<Outputs>> holdout_targets =
      AskNetworks(game, teacher.store, holdout, value, config.workers);
  if (!holdout_targets.ok()) return holdout_targets.status();
  result.play_seconds = Seconds(play_start);
  say(lcfr::StreamCat("distill: ", result.train_states, " states to fit, ", result.holdout_states,
                      " held out (", static_cast<int>(result.play_seconds), " s)"));

  // The student: each network fitted to the teacher's outputs at the legal actions.
  const Clock::time_point fit_start = Clock::now();
  inference::NetworkSet student = inference::NetworkSet::Create(student_shape, config.seed);
  OptimizerConfig optimizer = teacher.config.training;
  optimizer.device = inference::Device::kCpu;
  optimizer.linear_weighting = false;  // every sample weighs 1
  optimizer.max_sample_weight = 0;
  at::set_num_threads(optimizer.threads);
  Communicator single;
  Learner learner(optimizer, game.EncodingSize(), game.num_actions(), false, single);
  const GameFeatureEncoder<engine::LostCities> encoder(game);
  const traversal::SampleShape shape = encoder.shape().WithoutFeatures();
  struct Job {
    int network;
    const char* name;
    int player;  // the advantage networks: only their player's decisions; -1 = every decision
    std::array<float, kMaxActions> Outputs::*field;
  };
  std::vector<Job> jobs = {{traversal::kAdvantageNetwork0, "advantage-0", 0, &Outputs::advantage},
                           {traversal::kAdvantageNetwork1, "advantage-1", 1, &Outputs::advantage},
                           {traversal::kStrategyNetwork, "strategy", -1, &Outputs::strategy}};
  if (value) jobs.push_back({traversal::kValueNetwork, "value", -1, &Outputs::value});
  Rng fit_rng(DeriveSeed({config.seed, kDistillStream, ~uint64_t{0}}));
  const int n = game.num_actions();
  for (const Job& job : jobs) {
    traversal::SampleBuffer buffer(shape);
    for (size_t i = 0; i < train.size(); ++i) {
      const Position& p = train[i];
      if (job.player >= 0 && p.mover != job.player) continue;
      const engine::View& view = job.network == traversal::kValueNetwork ? p.value_view : p.view;
      const size_t k = buffer.Add({}, traversal::ViewBytes(view), p.legal, 1.0f, 1, p.mover,
                                  static_cast<int64_t>(i));
      const std::array<float, kMaxActions>& target = (*targets)[i].*job.field;
      std::copy(target.begin(), target.begin() + n, buffer.target(k).begin());
    }
    SampleMemory memory(std::max<int64_t>(1, static_cast<int64_t>(buffer.size())), encoder,
                        Retention::kReservoir);
    memory.Add(buffer, fit_rng);
    say(lcfr::StreamCat("distill: fitting ", job.name, " on ", memory.size(), " states, ",
                        config.steps, " steps ..."));
    DistilledNetwork d;
    d.network = job.network;
    d.name = job.name;
    d.train = memory.size();
    d.loss = learner.Fit(student, job.network, memory, config.steps, Loss::kMaskedMse, fit_rng);
    result.networks.push_back(d);
  }
  result.fit_seconds = Seconds(fit_start);

  // The agreement on the held-out states, with the student served as any model is.
  auto student_store = std::make_shared<inference::ModelStore>(student);
  absl::StatusOr<std::vector<Outputs>> answers =
      AskNetworks(game, student_store, holdout, value, config.workers);
  if (!answers.ok()) return answers.status();
  for (size_t k = 0; k < jobs.size(); ++k) {  // result.networks[k] is jobs[k]'s
    const Job& job = jobs[k];
    DistilledNetwork& d = result.networks[k];
    double sum = 0, squares = 0, error = 0;
    int64_t count = 0;
    for (size_t i = 0; i < holdout.size(); ++i) {
      const Position& p = holdout[i];
      if (job.player >= 0 && p.mover != job.player) continue;
      const std::array<float, kMaxActions>& t = (*holdout_targets)[i].*job.field;
      const std::array<float, kMaxActions>& s = (*answers)[i].*job.field;
      for (uint32_t m = p.legal; m; m &= m - 1) {
        const int a = std::countr_zero(m);
        sum += t[a];
        squares += static_cast<double>(t[a]) * t[a];
        error += (static_cast<double>(s[a]) - t[a]) * (static_cast<double>(s[a]) - t[a]);
        ++count;
      }
    }
    if (count > 0) {
      const double mean = sum / static_cast<double>(count);
      d.holdout_mse = error / static_cast<double>(count);
      d.holdout_variance = squares / static_cast<double>(count) - mean * mean;
    }
  }
  for (size_t i = 0; i < holdout.size(); ++i) {
    const uint32_t legal = holdout[i].legal;
    Agree((*holdout_targets)[i].advantage, (*answers)[i].advantage, legal, n,
          traversal::Head::kRegretMatching, result.current);
    Agree((*holdout_targets)[i].strategy, (*answers)[i].strategy, legal, n,
          traversal::Head::kSoftmax, result.average);
  }
  for (DistillAgreement* a : {&result.current, &result.average}) {
    const double states = static_cast<double>(std::max<size_t>(1, holdout.size()));
    a->greedy /= states;
    a->total_variation /= states;
  }

  // The model's files, together (training/model_files.h): an earlier model at --out is replaced
  // whole or kept whole.
  absl::StatusOr<std::string> bytes = inference::SerializeNetworks(student);
  if (!bytes.ok()) return bytes.status();
  if (absl::Status s = WriteModelFiles(*files, *bytes, DumpConfig(student_config)); !s.ok()) {
    return s;
  }
  return result;
}

}  // namespace lcfr::training
