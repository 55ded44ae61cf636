#include "training/trainer.h"

#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <sys/stat.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>
#include <torch/serialize.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "engine/atomic_file.h"
#include "engine/exact.h"
#include "engine/kuhn.h"
#include "engine/leduc.h"
#include "engine/lost_cities.h"
#include "engine/stream_cat.h"
#include "inference/batched_evaluator.h"
#include "inference/model_store.h"
#include "inference/networks.h"
#include "nlohmann/json.hpp"
#include "training/evaluation.h"
#include "training/reservoir.h"
#include "traversal/runner.h"

namespace lcfr::training {
namespace {

using Clock = std::chrono::steady_clock;
using lcfr::StreamCat;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Stream purposes: every random stream of a run is DeriveSeed({seed, iteration, purpose, ...}).
enum Purpose : uint64_t { kInit = 11, kMemory = 12, kBatches = 13, kEvaluation = 14 };

bool Exists(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

absl::Status MakeDirectory(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::InternalError(
        StreamCat("cannot create directory ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StreamCat(path, ": cannot open"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void RemoveTree(const std::string& path) {
  // POSIX only: std::filesystem is interposed by libtorch.so (inference/README.md).
  const std::string command = "rm -rf '" + path + "'";
  if (std::system(command.c_str()) != 0)
    std::fprintf(stderr, "warning: could not remove %s\n", path.c_str());
}

std::string IterationDir(int iteration) {
  char name[32];
  std::snprintf(name, sizeof(name), "iter_%06d", iteration);
  return name;
}

std::string FormatDuration(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  if (s >= 3600) return StreamCat(s / 3600, "h", (s % 3600) / 60, "m");
  if (s >= 60) return StreamCat(s / 60, "m", s % 60, "s");
  return StreamCat(s, "s");
}

struct Batch {
  torch::Tensor x, target, mask, weight;
};

template <engine::Game G>
class Trainer {
 public:
  Trainer(const G& game, const TrainOptions& options)
      : game_(game),
        config_(options.config),
        options_(options),
        run_dir_(options.run_dir),
        feature_size_(game.EncodingSize()),
        num_actions_(game.num_actions()) {
    shape_.game = config_.run.game;
    shape_.input_size = feature_size_;
    shape_.num_actions = num_actions_;
    shape_.config.hidden_width = config_.network.hidden_width;
    shape_.config.hidden_layers = config_.network.hidden_layers;
    shape_.config.activation = *inference::ParseActivation(config_.network.activation);
    device_ =
        *inference::ResolveDevice(config_.training.device) == "cuda" ? torch::kCUDA : torch::kCPU;
    for (int p = 0; p < 2; ++p) {
      advantage_[p] = std::make_unique<Reservoir>(config_.memory.advantage_capacity, feature_size_,
                                                  num_actions_);
    }
    strategy_ =
        std::make_unique<Reservoir>(config_.memory.strategy_capacity, feature_size_, num_actions_);
  }

  absl::Status Run() {
    if (absl::Status s = MakeDirectory(run_dir_); !s.ok()) return s;
    if (absl::Status s = MakeDirectory(run_dir_ + "/checkpoints"); !s.ok()) return s;
    int start = 0;
    if (options_.resume) {
      absl::StatusOr<int> resumed = LoadLatestCheckpoint();
      if (!resumed.ok()) return resumed.status();
      start = *resumed;
    } else {
      if (Exists(run_dir_ + "/checkpoints/LATEST")) {
        return absl::FailedPreconditionError(StreamCat(
            run_dir_, " already holds a run; use --resume ", run_dir_, " or another --run-dir"));
      }
      nets_ = inference::NetworkSet::Create(shape_, engine::DeriveSeed({Seed(), 0, kInit}));
      ToDevice();
      if (absl::Status s = WriteFileAtomically(run_dir_ + "/config.yaml", DumpConfig(config_));
          !s.ok()) {
        return s;
      }
      if (absl::Status s = WriteFileAtomically(run_dir_ + "/metrics.jsonl", ""); !s.ok()) return s;
    }
    store_ = std::make_shared<inference::ModelStore>(nets_);
    BuildRunner();

    std::ofstream metrics(run_dir_ + "/metrics.jsonl", std::ios::app);
    const int last = config_.run.iterations;
    const auto run_start = Clock::now();
    int done_here = 0;
    nlohmann::ordered_json last_eval;
    for (int t = start + 1; t <= last; ++t) {
      nlohmann::ordered_json line = Iterate(t);
      if (line.contains("eval")) last_eval = line["eval"];
      if (line.contains("exploitability")) last_eval = {{"exploitability", line["exploitability"]}};
      const bool checkpoint = t % config_.run.checkpoint_every == 0 || t == last;
      if (checkpoint) {
        const auto c0 = Clock::now();
        if (absl::Status s = WriteCheckpoint(t); !s.ok()) return s;
        line["time"]["checkpoint"] = Since(c0);
      }
      metrics << line.dump() << "\n";
      metrics.flush();
      ++done_here;
      Progress(t, last, done_here, Since(run_start), line);
      if (options_.stop_after > 0 && done_here >= options_.stop_after && t < last) {
        return absl::OkStatus();
      }
    }
    if (options_.progress && !tty_) std::fprintf(stderr, "\n");
    nlohmann::ordered_json summary;
    summary["game"] = config_.run.game;
    summary["iterations"] = last;
    summary["seconds_this_invocation"] = Since(run_start);
    summary["final_evaluation"] = last_eval;
    summary["checkpoint"] = run_dir_ + "/checkpoints/" + IterationDir(last);
    return WriteFileAtomically(run_dir_ + "/summary.json", summary.dump(2) + "\n");
  }

 private:
  uint64_t Seed() const { return static_cast<uint64_t>(config_.run.seed); }

  void ToDevice() {
    for (auto& net : nets_.nets) net->to(device_);
  }

  void BuildRunner() {
    traversal::RunnerConfig runner;
    runner.workers = config_.traversal.workers;
    runner.worker_chunk_size = config_.traversal.worker_chunk_size;
    runner.max_batch = config_.traversal.max_batch;
    runner.seed = Seed();
    runner.cfr.scheme = *traversal::ParseScheme(config_.traversal.scheme);
    runner.cfr.epsilon = config_.traversal.epsilon;
    runner.cfr.hybrid_depth = config_.traversal.hybrid_depth;
    runner.cfr.hybrid_actions = config_.traversal.hybrid_actions;
    runner.cfr.hybrid_epsilon = config_.traversal.hybrid_epsilon;
    runner.cfr.start_depth_max = config_.traversal.start_depth_max;
    runner.cfr.strategy_sample_rate = config_.traversal.strategy_sample_rate;
    runner.cfr.payoff_scale = config_.traversal.payoff_scale;
    runner.cfr.common_random_numbers = config_.traversal.common_random_numbers;
    inference_.device = config_.inference.device;
    inference_.precision = config_.inference.precision;
    inference_.intra_op_threads = config_.inference.intra_op_threads;
    inference_.cuda_graphs = config_.inference.cuda_graphs;
    inference_.max_batch = config_.inference.max_batch;
    runner_ = std::make_unique<traversal::TraversalRunner<G>>(game_, runner, [this](int) {
      auto evaluator = inference::MakeBatchedEvaluator(store_, inference_);
      LCFR_CHECK(evaluator.ok()) << evaluator.status().message();
      return std::move(*evaluator);
    });
  }

  nlohmann::ordered_json Iterate(int t) {
    nlohmann::ordered_json line;
    line["iteration"] = t;
    double traversal_seconds = 0, advantage_seconds = 0;
    std::array<double, 2> losses{};
    int64_t advantage_samples = 0, strategy_samples = 0;
    runner_->ResetStats();
    for (int p = 0; p < 2; ++p) {
      at::set_num_threads(config_.inference.intra_op_threads);
      const auto t0 = Clock::now();
      traversal::CollectingSink sink(feature_size_, num_actions_);
      runner_->Run(t, p, config_.traversal.traversals, sink);
      traversal_seconds += Since(t0);
      engine::Rng memory_rng(engine::DeriveSeed(
          {Seed(), static_cast<uint64_t>(t), kMemory, static_cast<uint64_t>(p)}));
      advantage_[p]->Add(sink.advantage, memory_rng);
      strategy_->Add(sink.strategy, memory_rng);
      advantage_samples += static_cast<int64_t>(sink.advantage.size());
      strategy_samples += static_cast<int64_t>(sink.strategy.size());
      const auto t1 = Clock::now();
      at::set_num_threads(config_.training.threads);
      losses[p] = TrainAdvantage(p, t);
      store_->Publish(nets_);
      advantage_seconds += Since(t1);
    }
    const traversal::WorkerStats stats = runner_->TotalStats();
    double strategy_seconds = 0;
    const bool last = t == config_.run.iterations;
    if (t % config_.training.strategy_every == 0 || last) {
      const auto t0 = Clock::now();
      at::set_num_threads(config_.training.threads);
      line["strategy_loss"] = TrainStrategy(t);
      store_->Publish(nets_);
      strategy_trained_ = true;
      strategy_seconds = Since(t0);
    }
    double eval_seconds = 0;
    if (strategy_trained_ && (t % config_.evaluation.every == 0 || last)) {
      const auto t0 = Clock::now();
      Evaluate(t, line);
      eval_seconds = Since(t0);
    }
    line["time"] = {{"traversal", traversal_seconds},
                    {"advantage_training", advantage_seconds},
                    {"strategy_training", strategy_seconds},
                    {"evaluation", eval_seconds}};
    line["traversals_per_s"] = 2.0 * config_.traversal.traversals / traversal_seconds;
    line["policy_calls_per_s"] = static_cast<double>(stats.policy_calls) / traversal_seconds;
    line["rows_per_forward"] = stats.rows.Mean();
    line["capped_leaves"] = stats.capped_leaves;
    line["advantage_loss"] = {losses[0], losses[1]};
    line["samples"] = {{"advantage", advantage_samples}, {"strategy", strategy_samples}};
    line["memory"] = {{"advantage", {advantage_[0]->size(), advantage_[1]->size()}},
                      {"strategy", strategy_->size()},
                      {"advantage_fill", static_cast<double>(advantage_[0]->size()) /
                                             static_cast<double>(advantage_[0]->capacity())},
                      {"strategy_fill", static_cast<double>(strategy_->size()) /
                                            static_cast<double>(strategy_->capacity())}};
    return line;
  }

  // Host staging for one Fit: allocated once (pinned on CUDA) and refilled every step, so a
  // mini-batch costs memcpys, no allocation per sample or per step.
  Batch StagingBatch(int64_t rows) const {
    const auto options =
        torch::TensorOptions().dtype(torch::kFloat).pinned_memory(device_.is_cuda());
    return {torch::empty({rows, feature_size_}, options),
            torch::empty({rows, num_actions_}, options),
            torch::empty({rows, num_actions_}, options), torch::empty({rows}, options)};
  }

  // Fills `host` with `rows` samples drawn uniformly (with replacement) from `memory` and returns
  // them on the training device (a synchronous copy from pinned memory on CUDA, so the staging
  // can be refilled at once).
  Batch Sample(const Reservoir& memory, Batch& host, engine::Rng& rng) {
    const int64_t rows = host.x.size(0);
    float* x = host.x.data_ptr<float>();
    float* target = host.target.data_ptr<float>();
    float* mask = host.mask.data_ptr<float>();
    float* weight = host.weight.data_ptr<float>();
    const double clip = config_.training.max_sample_weight;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = static_cast<int64_t>(rng.Next() % static_cast<uint64_t>(memory.size()));
      std::memcpy(x + r * feature_size_, memory.features(i), sizeof(float) * feature_size_);
      std::memcpy(target + r * num_actions_, memory.target(i), sizeof(float) * num_actions_);
      for (int a = 0; a < num_actions_; ++a) {
        mask[r * num_actions_ + a] = (memory.mask(i) >> a & 1) ? 1.0f : 0.0f;
      }
      double w = memory.weight(i);
      if (clip > 0) w = std::min(w, clip);
      if (config_.training.linear_weighting) w *= memory.iteration(i);
      weight[r] = static_cast<float>(w);
    }
    if (!device_.is_cuda()) return host;
    return {host.x.to(device_), host.target.to(device_), host.mask.to(device_),
            host.weight.to(device_)};
  }

  // Trains network `n` on `memory`; `strategy` selects the strategy loss. Returns the mean loss
  // of the last tenth of the steps.
  double Fit(int n, const Reservoir& memory, int steps, bool strategy, engine::Rng& rng) {
    if (memory.size() == 0) return 0.0;
    auto& net = nets_.nets[n];
    net->train();
    torch::optim::Adam optimizer(net->parameters(),
                                 torch::optim::AdamOptions(config_.training.learning_rate));
    const int64_t rows = std::min<int64_t>(config_.training.batch_size, memory.size() * 4);
    Batch staging = StagingBatch(rows);
    double tail_loss = 0;
    int tail_steps = 0;
    for (int step = 0; step < steps; ++step) {
      Batch b = Sample(memory, staging, rng);
      const torch::Tensor out = net->forward(b.x);
      torch::Tensor per_sample;
      if (!strategy) {
        per_sample = ((out - b.target) * b.mask).pow(2).sum(1);
      } else {
        const torch::Tensor logits = out.masked_fill(b.mask == 0, -1e9);
        if (config_.training.strategy_loss == "mse") {
          per_sample = ((torch::softmax(logits, 1) - b.target) * b.mask).pow(2).sum(1);
        } else {
          per_sample = -(b.target * torch::log_softmax(logits, 1) * b.mask).sum(1);
        }
      }
      const torch::Tensor loss = (per_sample * b.weight).sum() / b.weight.sum().clamp_min(1e-12);
      optimizer.zero_grad();
      loss.backward();
      if (config_.training.grad_clip > 0) {
        torch::nn::utils::clip_grad_norm_(net->parameters(), config_.training.grad_clip);
      }
      optimizer.step();
      if (step >= steps - std::max(1, steps / 10)) {
        tail_loss += loss.item<double>();
        ++tail_steps;
      }
    }
    net->eval();
    return tail_steps ? tail_loss / tail_steps : 0.0;
  }

  void Reinitialize(int n, uint64_t seed) {
    torch::manual_seed(seed);
    nets_.nets[n] = inference::Mlp(shape_.input_size, shape_.num_actions, shape_.config);
    nets_.nets[n]->to(device_);
  }

  double TrainAdvantage(int p, int t) {
    if (!config_.training.warm_start) {
      Reinitialize(p, engine::DeriveSeed(
                          {Seed(), static_cast<uint64_t>(t), kInit, static_cast<uint64_t>(p)}));
    }
    engine::Rng rng(
        engine::DeriveSeed({Seed(), static_cast<uint64_t>(t), kBatches, static_cast<uint64_t>(p)}));
    return Fit(p, *advantage_[p], config_.training.advantage_steps, false, rng);
  }

  double TrainStrategy(int t) {
    Reinitialize(traversal::kStrategyNetwork,
                 engine::DeriveSeed({Seed(), static_cast<uint64_t>(t), kInit, 2}));
    engine::Rng rng(engine::DeriveSeed({Seed(), static_cast<uint64_t>(t), kBatches, 2}));
    return Fit(traversal::kStrategyNetwork, *strategy_, config_.training.strategy_steps, true, rng);
  }

  void Evaluate(int t, nlohmann::ordered_json& line);

  absl::Status WriteCheckpoint(int t) {
    const std::string base = run_dir_ + "/checkpoints/";
    const std::string name = IterationDir(t);
    const std::string temporary = base + name + ".tmp";
    RemoveTree(temporary);
    if (absl::Status s = MakeDirectory(temporary); !s.ok()) return s;
    if (absl::Status s = inference::SaveNetworks(nets_, temporary + "/networks.pt"); !s.ok())
      return s;
    for (int p = 0; p < 2; ++p) {
      if (absl::Status s = advantage_[p]->Save(StreamCat(temporary, "/advantage", p, ".mem"));
          !s.ok()) {
        return s;
      }
    }
    if (absl::Status s = strategy_->Save(temporary + "/strategy.mem"); !s.ok()) return s;
    nlohmann::ordered_json state;
    state["iteration"] = t;
    state["strategy_trained"] = strategy_trained_;
    state["game"] = config_.run.game;
    if (absl::Status s = WriteFileAtomically(temporary + "/state.json", state.dump(2) + "\n");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = WriteFileAtomically(temporary + "/config.yaml", DumpConfig(config_));
        !s.ok()) {
      return s;
    }
    RemoveTree(base + name);
    if (std::rename(temporary.c_str(), (base + name).c_str()) != 0) {
      return absl::InternalError(StreamCat("cannot rename ", temporary));
    }
    std::string previous;
    if (auto latest = ReadFile(base + "LATEST"); latest.ok()) previous = *latest;
    if (absl::Status s = WriteFileAtomically(base + "LATEST", name); !s.ok()) return s;
    // Replace the previous checkpoint unless it is one to keep.
    if (!previous.empty() && previous != name) {
      const int previous_t = std::atoi(previous.c_str() + 5);
      const int keep = config_.run.keep_every;
      if (keep == 0 || previous_t % keep != 0) RemoveTree(base + previous);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<int> LoadLatestCheckpoint() {
    const std::string base = run_dir_ + "/checkpoints/";
    auto latest = ReadFile(base + "LATEST");
    if (!latest.ok()) {
      return absl::NotFoundError(
          StreamCat(run_dir_, ": no checkpoint to resume from (", base, "LATEST is missing)"));
    }
    const std::string dir = base + *latest;
    auto state_text = ReadFile(dir + "/state.json");
    if (!state_text.ok()) return state_text.status();
    nlohmann::json state;
    try {
      state = nlohmann::json::parse(*state_text);
    } catch (const std::exception& e) {
      return absl::InvalidArgumentError(StreamCat(dir, "/state.json: ", e.what()));
    }
    if (state.value("game", "") != config_.run.game) {
      return absl::InvalidArgumentError(StreamCat(dir, ": a checkpoint of game '",
                                                  state.value("game", ""), "', the config says '",
                                                  config_.run.game, "'"));
    }
    auto nets = inference::LoadNetworks(dir + "/networks.pt", &shape_);
    if (!nets.ok()) return nets.status();
    nets_ = std::move(*nets);
    ToDevice();
    for (int p = 0; p < 2; ++p) {
      if (absl::Status s = advantage_[p]->Load(StreamCat(dir, "/advantage", p, ".mem")); !s.ok()) {
        return s;
      }
    }
    if (absl::Status s = strategy_->Load(dir + "/strategy.mem"); !s.ok()) return s;
    strategy_trained_ = state.value("strategy_trained", false);
    const int t = state.value("iteration", 0);
    // metrics.jsonl keeps only the iterations the checkpoint covers.
    auto metrics = ReadFile(run_dir_ + "/metrics.jsonl");
    std::string kept;
    if (metrics.ok()) {
      std::stringstream in(*metrics);
      for (std::string row; std::getline(in, row);) {
        if (row.empty()) continue;
        try {
          if (nlohmann::json::parse(row).value("iteration", 0) <= t) kept += row + "\n";
        } catch (const std::exception&) {
          break;  // a line cut by the kill that stopped the run
        }
      }
    }
    if (absl::Status s = WriteFileAtomically(run_dir_ + "/metrics.jsonl", kept); !s.ok()) return s;
    if (options_.progress) {
      std::fprintf(stderr, "train: resuming %s from iteration %d\n", run_dir_.c_str(), t);
    }
    return t;
  }

  void Progress(int t, int last, int done_here, double elapsed,
                const nlohmann::ordered_json& line) {
    if (!options_.progress) return;
    const double per_iteration = elapsed / done_here;
    std::string text = StreamCat(
        "iter ", t, "/", last, " | ", FormatDuration(per_iteration), "/it | ETA ",
        FormatDuration(per_iteration * (last - t)), " | ",
        static_cast<int64_t>(line["policy_calls_per_s"].get<double>()), " calls/s, ",
        static_cast<int>(line["rows_per_forward"].get<double>()), " rows | adv loss ",
        line["advantage_loss"][0].get<double>(), " ", line["advantage_loss"][1].get<double>());
    if (line.contains("strategy_loss"))
      text += StreamCat(" | strat loss ", line["strategy_loss"].get<double>());
    if (line.contains("exploitability"))
      text += StreamCat(" | exploitability ", line["exploitability"].get<double>());
    if (line.contains("eval")) {
      for (const auto& [name, result] : line["eval"].items()) {
        text += StreamCat(" | vs ", name, " ", result["win_rate"].template get<double>());
      }
    }
    std::fprintf(stderr, tty_ ? "\r\033[K%s" : "%s\n", text.c_str());
    if (tty_ && t == last) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

  const G& game_;
  TrainConfig config_;
  TrainOptions options_;
  std::string run_dir_;
  int feature_size_;
  int num_actions_;
  inference::NetworkShape shape_;
  torch::Device device_ = torch::kCPU;
  inference::NetworkSet nets_;
  std::shared_ptr<inference::ModelStore> store_;
  inference::InferenceConfig inference_;
  std::unique_ptr<traversal::TraversalRunner<G>> runner_;
  std::array<std::unique_ptr<Reservoir>, 2> advantage_;
  std::unique_ptr<Reservoir> strategy_;
  bool strategy_trained_ = false;
  const bool tty_ = isatty(fileno(stderr)) != 0;
};

// Toy games: the exact exploitability of the strategy network's policy.
template <engine::Game G>
void Trainer<G>::Evaluate(int t, nlohmann::ordered_json& line) {
  if constexpr (engine::EnumerableGame<G>) {
    c10::InferenceMode guard;
    auto& net = nets_.nets[traversal::kStrategyNetwork];
    engine::ExactSolver<G> solver(game_);
    std::vector<float> features(feature_size_);
    const auto result =
        solver.Exploitability([&](const typename G::State& s, std::span<float> out) {
          game_.Encode(s, features);
          const uint32_t legal = game_.LegalMask(s);
          const torch::Tensor x = torch::from_blob(features.data(), {1, feature_size_}).to(device_);
          const torch::Tensor logits = net->forward(x).to(torch::kCPU).contiguous();
          const float* l = logits.data_ptr<float>();
          float max = -1e30f;
          for (int a = 0; a < num_actions_; ++a) {
            if (legal >> a & 1) max = std::max(max, l[a]);
          }
          double total = 0;
          for (int a = 0; a < num_actions_; ++a) {
            out[a] = (legal >> a & 1) ? std::exp(l[a] - max) : 0.0f;
            total += out[a];
          }
          for (int a = 0; a < num_actions_; ++a) out[a] = static_cast<float>(out[a] / total);
        });
    line["exploitability"] = result.exploitability;
    line["nash_conv"] = result.nash_conv;
  } else {
    nlohmann::ordered_json eval;
    for (const std::string& opponent : config_.evaluation.opponents) {
      auto result = PlayNetworkMatch(
          game_,
          [this](int) {
            auto evaluator = inference::MakeBatchedEvaluator(store_, inference_);
            return std::move(*evaluator);
          },
          opponent, config_.evaluation.games,
          engine::DeriveSeed({Seed(), static_cast<uint64_t>(t), kEvaluation}),
          config_.evaluation.workers);
      if (!result.ok()) continue;
      const engine::Interval ci = result->win_rate_ci();
      eval[opponent] = {{"win_rate", result->win_rate()},
                        {"ci_low", ci.low},
                        {"ci_high", ci.high},
                        {"mean_score_diff", result->mean_score_diff()},
                        {"games", result->games},
                        {"capped", result->capped}};
    }
    line["eval"] = eval;
  }
}

}  // namespace

absl::Status Train(const TrainOptions& options) {
  if (absl::Status s = Validate(options.config); !s.ok()) return s;
  try {
    const std::string& game = options.config.run.game;
    if (game == "kuhn") {
      const engine::KuhnPoker kuhn;
      return Trainer<engine::KuhnPoker>(kuhn, options).Run();
    }
    if (game == "leduc") {
      const engine::LeducPoker leduc;
      return Trainer<engine::LeducPoker>(leduc, options).Run();
    }
    const engine::LostCities lost_cities(options.config.rules);
    return Trainer<engine::LostCities>(lost_cities, options).Run();
  } catch (const std::exception& e) {
    return absl::InternalError(StreamCat("training failed: ", e.what()));
  }
}

}  // namespace lcfr::training
