#include "training/trainer.h"

#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>
#include <torch/serialize.h>
#include <torch/types.h>
#include <torch/utils.h>
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

#include "base/atomic_file.h"
#include "base/error_text.h"
#include "base/files.h"
#include "base/stream_cat.h"
#include "engine/exact.h"
#include "engine/kuhn.h"
#include "engine/leduc.h"
#include "engine/lost_cities.h"
#include "inference/batched_evaluator.h"
#include "inference/model_store.h"
#include "inference/networks.h"
#include "nlohmann/json.hpp"
#include "training/checksums.h"
#include "training/compose.h"
#include "training/distributed.h"
#include "training/evaluation.h"
#include "training/exact_evaluation.h"
#include "training/exploit.h"
#include "training/exploit_target.h"
#include "training/iteration_metrics.h"
#include "training/learner.h"
#include "training/memory.h"
#include "training/run_directory.h"
#include "training/run_summary.h"
#include "traversal/compacting_sink.h"
#include "traversal/runner.h"
#include "traversal/sample_digest.h"

namespace lcfr::training {
namespace {

// The process's CPU seconds so far, user and system, over every thread.
double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

using Clock = std::chrono::steady_clock;
using lcfr::StreamCat;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Stream purposes: every random stream of a run is DeriveSeed({seed, iteration, purpose, ...}).
enum Purpose : uint64_t { kInit = 11, kMemory = 12, kBatches = 13, kEvaluation = 14 };

// Rank r's share of `total` items split over `world` ranks: [Begin(r), Begin(r + 1)).
int64_t ShareBegin(int64_t total, int rank, int world) { return total * rank / world; }
int64_t Share(int64_t total, int rank, int world) {
  return ShareBegin(total, rank + 1, world) - ShareBegin(total, rank, world);
}

using Digest = traversal::SampleDigest;
using traversal::SampleKind;

template <engine::Game G>
class Trainer {
 public:
  Trainer(const G& game, const TrainOptions& options, const Devices& devices, Communicator& comm)
      : game_(game),
        config_(options.config),
        options_(options),
        run_dir_(options.run_dir),
        dir_(options.run_dir, comm.rank(), comm.world_size()),
        devices_(devices),
        encoder_(game),
        feature_size_(game.EncodingSize()),
        num_actions_(game.num_actions()),
        comm_(comm),
        rank_(comm.rank()),
        world_(comm.world_size()),
        learner_(options.config.training, game.EncodingSize(), game.num_actions(),
                 devices.training == inference::Device::kCuda, comm) {
    shape_ = NetworkShapeOf(game, config_.run.game, config_.network);
    if (options.exploit) exploit_slots_ = TraversalSlots(options.exploit->policy);
    device_ = devices.training == inference::Device::kCuda ? torch::kCUDA : torch::kCPU;
    // Each rank keeps its share of every memory; together they hold the configured capacity.
    auto shard = [this](int capacity) {
      return std::max<int64_t>(1, Share(capacity, rank_, world_));
    };
    // A memory for each kind of sample the scheme produces: reservoirs for the regrets (one per
    // player) and the strategies, a sliding window for the values.
    kinds_ = traversal::SchemeSampleKinds(config_.traversal.cfr.scheme);
    auto make = [&](int capacity, Retention retention) {
      return std::make_unique<SampleMemory>(shard(capacity), encoder_, retention);
    };
    for (int p = 0; p < 2; ++p) {
      advantage_[p] = make(config_.memory.advantage_capacity, Retention::kReservoir);
    }
    strategy_ = make(config_.memory.strategy_capacity, Retention::kReservoir);
    if (kinds_[SampleKind::kValue]) {
      value_ = make(config_.memory.value_capacity, Retention::kSlidingWindow);
    }
    // The run's memories by shard name, each saved through its own segment chain.
    auto add_shard = [this](std::string name, SampleMemory* memory) {
      SegmentChain chain([this, name](const std::string& dir, int segment) {
        return dir_.ShardPath(dir, name, segment);
      });
      shards_.push_back({name, memory, std::move(chain)});
    };
    // Shard names: the sample kind's name (traversal/samples.h), with the player for the
    // advantage memories.
    const auto kind_name = [](SampleKind kind) { return std::string(SampleKindName(kind)); };
    for (int p = 0; p < 2; ++p) {
      add_shard(StreamCat(kind_name(SampleKind::kAdvantage), p), advantage_[p].get());
    }
    add_shard(kind_name(SampleKind::kStrategy), strategy_.get());
    if (value_) add_shard(kind_name(SampleKind::kValue), value_.get());
  }

  // Runs the training; a fresh run that fails before its first checkpoint (an error or an
  // exception) leaves no run directory behind: there is nothing in it to resume.
  absl::Status Run() {
    absl::Status status;
    try {
      status = RunSteps();
    } catch (...) {
      ForgetUnstartedRun();
      throw;
    }
    if (!status.ok()) ForgetUnstartedRun();
    return status;
  }

 private:
  void ForgetUnstartedRun() {
    if (rank_ == 0 && created_directory_ && !published_) (void)dir_.RemoveUnstarted();
  }

  // The networks of a fresh run, on their device; an allocation failure is an error naming the
  // sizes instead of an exception with libtorch's backtrace.
  absl::Status AllocateNetworks() {
    try {
      nets_ = inference::NetworkSet::Create(shape_, DeriveSeed({Seed(), 0, kInit}));
      ToDevice();
      if (options_.exploit) {
        if (absl::Status s = LoadTarget(); !s.ok()) return s;
        target_->StartExploiter(nets_);
        target_->Place(0, nets_);
      }
    } catch (const std::exception& e) {
      return absl::ResourceExhaustedError(StreamCat(
          "cannot allocate the networks (network.hidden_width = ", config_.network.hidden_width,
          ", network.hidden_layers = ", config_.network.hidden_layers, "): ", ErrorText(e)));
    }
    return absl::OkStatus();
  }

  absl::Status RunSteps() {
    if (!options_.resume) {
      // Everything large is allocated before the run directory exists.
      if (absl::Status s = Agree(AllocateNetworks(), "allocating the networks"); !s.ok()) return s;
      store_ = std::make_shared<inference::ModelStore>(nets_);
      if (absl::Status s = Agree(BuildRunner(), "building the evaluators"); !s.ok()) return s;
    }
    // Rank 0 owns the run directory; every rank reads the checkpoint it resumes from (the run
    // directory must be shared between machines, docs/distributed.md).
    absl::Status setup = absl::OkStatus();
    if (rank_ == 0) setup = dir_.Create(options_.resume);
    if (absl::Status s = Agree(setup, "setting up the run directory"); !s.ok()) return s;
    int start = 0;
    if (options_.resume) {
      absl::StatusOr<int> resumed = LoadLatestCheckpoint();
      if (absl::Status s = Agree(resumed.status(), "loading the checkpoint"); !s.ok()) return s;
      start = *resumed;
      absl::Status truncated = absl::OkStatus();
      if (rank_ == 0) {
        // Idempotent retention first: a kill inside an earlier Publish may have left a
        // checkpoint that the rule says should be gone.
        truncated = dir_.Retain(config_.run.keep_every);
        if (truncated.ok()) truncated = dir_.TruncateMetrics(start, committed_metrics_);
        if (truncated.ok() && options_.progress) {
          std::fprintf(stderr, "%s: resuming %s from iteration %d\n", Command(), run_dir_.c_str(),
                       start);
        }
      }
      if (absl::Status s = Agree(truncated, "truncating metrics.jsonl"); !s.ok()) return s;
      store_ = std::make_shared<inference::ModelStore>(nets_);
      if (absl::Status s = Agree(BuildRunner(), "building the evaluators"); !s.ok()) return s;
    } else {
      created_directory_ = true;
      absl::Status written = absl::OkStatus();
      if (rank_ == 0) {
        written = WriteFileAtomically(dir_.ConfigPath(), DumpConfig(config_));
        if (written.ok() && options_.exploit) {
          written =
              WriteFileAtomically(ExploitFilePath(run_dir_), ExploitTargetJson(*options_.exploit));
        }
        if (written.ok()) written = WriteFileAtomically(dir_.MetricsPath(), "");
      }
      if (absl::Status s = Agree(written, "writing the run directory"); !s.ok()) return s;
    }

    std::ofstream metrics;
    if (rank_ == 0) metrics.open(dir_.MetricsPath(), std::ios::app);
    int last = config_.run.iterations;
    const auto run_start = Clock::now();
    int done_here = 0;
    for (int t = start + 1; t <= last; ++t) {
      if (options_.minutes > 0 && done_here > 0 && t < last) {
        // A time budget: t is the last iteration when the one after it would end past the
        // budget at this invocation's pace (the ranks agree on the slowest projection).
        std::array<double, 1> after_next = {Since(run_start) * (done_here + 2) / done_here};
        comm_.AllReduceMax(after_next);
        if (after_next[0] > options_.minutes * 60) last = config_.run.iterations = t;
      }
      Reach(options_.fault, FaultStep::kStart, rank_, t);
      absl::StatusOr<IterationMetrics> iterated = Iterate(t);
      if (!iterated.ok()) return iterated.status();
      IterationMetrics& m = *iterated;
      // The checkpoint (every checkpoint_every iterations and after the last).
      if (t % config_.run.checkpoint_every == 0 || t == last) {
        if (absl::Status s = WriteCheckpoint(t, m); !s.ok()) return s;
      }
      if (rank_ == 0) {
        metrics << m.ToJsonLine() << "\n";
        metrics.flush();
      }
      Reach(options_.fault, FaultStep::kMetrics, rank_, t);
      ++done_here;
      if (rank_ == 0) Progress(m, last, done_here, Since(run_start));
      if (options_.stop_after > 0 && done_here >= options_.stop_after && t < last) {
        return absl::OkStatus();
      }
    }
    if (rank_ != 0) return absl::OkStatus();
    metrics.close();
    return WriteRunSummary(dir_, config_, world_, last, Since(run_start),
                           options_.progress ? Command() : nullptr, tty_);
  }

  uint64_t Seed() const { return static_cast<uint64_t>(config_.run.seed); }
  // The command the progress lines speak for.
  const char* Command() const { return options_.exploit ? "exploit" : "train"; }

  // Every rank learns whether every rank's `status` is OK; a rank whose own step succeeded
  // reports which rank failed. Collective.
  absl::Status Agree(const absl::Status& status, const char* what) {
    if (world_ == 1) return status;
    const std::vector<int64_t> failed = comm_.AllGather(status.ok() ? 0 : 1);
    if (!status.ok()) return status;
    for (int r = 0; r < world_; ++r) {
      if (failed[r] != 0) {
        return absl::AbortedError(
            StreamCat("rank ", r, " failed while ", what, " (its own message says why)"));
      }
    }
    return absl::OkStatus();
  }

  // A rank's own variant of a stream (memory insertion, mini-batches); a single process keeps
  // the streams it always had.
  uint64_t RankSeed(uint64_t seed) const {
    return world_ == 1 ? seed : DeriveSeed({seed, 1000 + static_cast<uint64_t>(rank_)});
  }

  void ToDevice() {
    for (auto& net : nets_.nets) net->to(device_);
  }

  // An exploit run's target networks, from its file (training/exploit_target.h).
  absl::Status LoadTarget() {
    absl::StatusOr<TargetNetworks> loaded =
        TargetNetworks::Load(*options_.exploit, shape_, device_);
    if (!loaded.ok()) return loaded.status();
    target_ = *std::move(loaded);
    return absl::OkStatus();
  }

  absl::Status BuildRunner() {
    traversal::RunnerConfig runner;
    static_cast<traversal::SchedulerConfig&>(runner) = config_.traversal.scheduler;
    runner.seed = Seed();
    runner.cfr = config_.traversal.cfr;
    if (exploit_slots_) runner.fixed_opponent = *exploit_slots_;
    if constexpr (std::is_same_v<G, engine::LostCities>) {
      if (options_.exploit && !options_.exploit->bot.empty() && !scripted_) {
        auto bot = MakeBotOpponent(options_.exploit->bot);
        if (!bot.ok()) return bot.status();
        scripted_ = *std::move(bot);
      }
    }
    inference_ = config_.inference;
    inference_.device = devices_.inference;
    try {
      absl::StatusOr<Evaluators> evaluators = MakeEvaluators(store_, inference_, runner.workers);
      if (!evaluators.ok()) return evaluators.status();
      runner_ =
          std::make_unique<traversal::TraversalRunner<G>>(game_, runner, HandOut(*evaluators));
      runner_->SetScriptedOpponent(scripted_.get());
    } catch (const std::exception& e) {
      return absl::ResourceExhaustedError(
          StreamCat("cannot build the traversal workers: ", ErrorText(e)));
    }
    return absl::OkStatus();
  }

  // One Deep CFR iteration (the steps in this file's header comment).
  absl::StatusOr<IterationMetrics> Iterate(int t) {
    IterationMetrics m;
    m.iteration = t;
    traversal::PerKind<int64_t> counts;  // this rank's samples, summed over the ranks below
    std::array<Digest, 2> digests;
    runner_->ResetStats();
    const int64_t total = config_.traversal.budget.traversals;
    const bool escher = config_.traversal.cfr.scheme == traversal::Scheme::kEscher;
    if (escher) {
      // 0. ESCHER: on-policy value traversals of the current strategies, then the history value
      //    network fitted to them, so that this iteration's regret targets use Q of sigma^t.
      const int64_t value_total = config_.traversal.budget.value_traversals;
      at::set_num_threads(config_.inference.intra_op_threads);
      const auto t0 = Clock::now();
      traversal::CompactingSink sink(traversal::ShapeOf(game_));
      runner_->Run(t, traversal::kValueTraversal, ShareBegin(value_total, rank_, world_),
                   Share(value_total, rank_, world_), sink);
      m.time.traversal += Since(t0);
      Rng memory_rng(RankSeed(
          DeriveSeed({Seed(), static_cast<uint64_t>(t), kMemory, traversal::kValueTraversal})));
      value_->Add(sink[SampleKind::kValue], memory_rng);
      counts[SampleKind::kValue] += static_cast<int64_t>(sink[SampleKind::kValue].size());
      const auto t1 = Clock::now();
      at::set_num_threads(config_.training.threads);
      m.value_loss = TrainValue(t);
      store_->Publish(nets_);
      m.time.value_training = Since(t1);
    }
    for (int p = 0; p < 2; ++p) {
      // 1. Traversals for player p: this rank's share of the indices, with the streams a single
      //    process would use.
      at::set_num_threads(config_.inference.intra_op_threads);
      const auto t0 = Clock::now();
      // An exploit run: the target plays the other seat from the target slot.
      if (target_ && target_->Place(1 - p, nets_)) store_->Publish(nets_);
      // The sink digests the samples as they come and keeps them without their features.
      traversal::CompactingSink sink(traversal::ShapeOf(game_));
      runner_->Run(t, p, ShareBegin(total, rank_, world_), Share(total, rank_, world_), sink);
      m.time.traversal += Since(t0);
      digests[p] = sink.digest();
      // 2. Their samples into the memories of the kinds the scheme produces, in traversal order.
      Rng memory_rng(RankSeed(
          DeriveSeed({Seed(), static_cast<uint64_t>(t), kMemory, static_cast<uint64_t>(p)})));
      for (SampleKind kind : traversal::kSampleKinds) {
        if (!kinds_[kind]) continue;
        MemoryOf(kind, p).Add(sink[kind], memory_rng);
        counts[kind] += static_cast<int64_t>(sink[kind].size());
      }
      // 3. Player p's advantage network, published to the workers.
      const auto t1 = Clock::now();
      at::set_num_threads(config_.training.threads);
      m.advantage_loss[p] = TrainAdvantage(p, t);  // already the mean over the ranks
      store_->Publish(nets_);
      m.time.advantage_training += Since(t1);
    }
    const traversal::WorkerStats stats = runner_->TotalStats();
    // 4. The value network (the value scheme), after both players' traversals: the next
    //    iteration's tail targets come from this fit.
    if (kinds_[SampleKind::kValue] && !escher) {
      const auto t0 = Clock::now();
      at::set_num_threads(config_.training.threads);
      m.value_loss = TrainValue(t);
      store_->Publish(nets_);
      m.time.value_training = Since(t0);
    }
    // 5. The strategy network, every strategy_every iterations and after the last (an exploit
    //    run has none: it plays its current policy, and the target sits in the slot).
    const bool last = t == config_.run.iterations;
    if (exploit_slots_) {
      strategy_trained_ = true;
    } else if (t % config_.training.strategy_every == 0 || last) {
      const auto t0 = Clock::now();
      at::set_num_threads(config_.training.threads);
      m.strategy_loss = TrainStrategy(t);
      store_->Publish(nets_);
      strategy_trained_ = true;
      m.time.strategy_training = Since(t0);
    }
    // 6. Every rank trained the same networks from the same averaged gradients: check it.
    m.weights_checksum = CheckRanksInSync(t);
    m.world_size = world_;
    // 7. Evaluation (rank 0), every evaluation.every iterations and after the last.
    if (rank_ == 0 && strategy_trained_ && (t % config_.evaluation.every == 0 || last)) {
      const auto t0 = Clock::now();
      if (absl::Status s = Evaluate(t, m); !s.ok()) return s;
      m.time.evaluation = Since(t0);
    }
    m.time.process_cpu = ProcessCpuSeconds();
    // 8. Totals over the ranks (a single process: its own figures).
    const size_t kinds = traversal::kNumSampleKinds;
    std::vector<int64_t> sums(counts.begin(), counts.end());
    for (const Digest& d : digests) sums.insert(sums.end(), {d.low, d.high});
    sums.insert(sums.end(),
                {stats.policy_calls, stats.capped_leaves, stats.rows.rows(), stats.rows.batches()});
    comm_.AllReduceSum(std::span<int64_t>(sums));
    for (SampleKind kind : traversal::kSampleKinds) {
      m.samples[kind] = sums[static_cast<size_t>(kind)];
    }
    for (int p = 0; p < 2; ++p) {
      m.digest[p] = Digest{sums[kinds + 2 * p], sums[kinds + 2 * p + 1]}.Hex();
    }
    const int64_t policy_calls = sums[kinds + 4], rows = sums[kinds + 6], batches = sums[kinds + 7];
    m.capped_leaves = sums[kinds + 5];
    std::array<int64_t, 4> sizes = {advantage_[0]->size(), advantage_[1]->size(), strategy_->size(),
                                    value_ ? value_->size() : 0};
    comm_.AllReduceSum(sizes);
    std::array<double, 1> slowest = {m.time.traversal};  // the phase ends with the last rank
    comm_.AllReduceMax(slowest);
    m.time.traversal = slowest[0];
    const int64_t traversals = 2 * total + (escher ? config_.traversal.budget.value_traversals : 0);
    m.traversals_per_s = static_cast<double>(traversals) / m.time.traversal;
    m.policy_calls_per_s = static_cast<double>(policy_calls) / m.time.traversal;
    m.rows_per_forward =
        batches > 0 ? static_cast<double>(rows) / static_cast<double>(batches) : 0.0;
    m.memory.advantage = {sizes[0], sizes[1]};
    m.memory.strategy = sizes[2];
    m.memory.advantage_fill =
        static_cast<double>(sizes[0]) / static_cast<double>(config_.memory.advantage_capacity);
    m.memory.strategy_fill =
        static_cast<double>(sizes[2]) / static_cast<double>(config_.memory.strategy_capacity);
    if (value_) m.memory.value = sizes[3];
    return m;
  }

  // A checksum of every network's weights; with several ranks, fails the run unless every rank
  // has the same.
  std::string CheckRanksInSync(int t) {
    uint64_t h = 0x84222325cbf29ce4ULL;
    for (auto& net : nets_.nets) {
      for (const torch::Tensor& param : net->parameters()) {
        const torch::Tensor values = param.detach().to(torch::kCPU).contiguous();
        const auto* words = static_cast<const uint32_t*>(values.data_ptr());
        for (int64_t i = 0; i < values.numel(); ++i) h = (h ^ words[i]) * 0x100000001b3ULL;
      }
    }
    const std::vector<int64_t> all = comm_.AllGather(static_cast<int64_t>(h));
    for (int r = 1; r < world_; ++r) {
      if (all[r] != all[0]) {
        throw DistributedError(StreamCat("after iteration ", t, " rank ", r,
                                         "'s networks differ from rank 0's: the ranks diverged"));
      }
    }
    char text[24];
    std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(h));
    return text;
  }

  void Reinitialize(int n, uint64_t seed) {
    torch::manual_seed(seed);
    nets_.nets[n] = inference::PolicyNet(shape_);
    nets_.nets[n]->to(device_);
  }

  double TrainAdvantage(int p, int t) {
    if (!config_.training.warm_start) {
      Reinitialize(p,
                   DeriveSeed({Seed(), static_cast<uint64_t>(t), kInit, static_cast<uint64_t>(p)}));
    }
    Rng rng(RankSeed(
        DeriveSeed({Seed(), static_cast<uint64_t>(t), kBatches, static_cast<uint64_t>(p)})));
    return learner_.Fit(nets_, p, *advantage_[p], config_.training.advantage_steps,
                        Loss::kMaskedMse, rng);
  }

  // The value network: kept between iterations (warm start) unless training.value_reinit.
  double TrainValue(int t) {
    if (config_.training.value_reinit) {
      Reinitialize(traversal::kValueNetwork,
                   DeriveSeed({Seed(), static_cast<uint64_t>(t), kInit, 3}));
    }
    Rng rng(RankSeed(DeriveSeed({Seed(), static_cast<uint64_t>(t), kBatches, 3})));
    return learner_.Fit(nets_, traversal::kValueNetwork, *value_, config_.training.value_steps,
                        Loss::kMaskedMse, rng);
  }

  double TrainStrategy(int t) {
    Reinitialize(traversal::kStrategyNetwork,
                 DeriveSeed({Seed(), static_cast<uint64_t>(t), kInit, 2}));
    Rng rng(RankSeed(DeriveSeed({Seed(), static_cast<uint64_t>(t), kBatches, 2})));
    return learner_.Fit(nets_, traversal::kStrategyNetwork, *strategy_,
                        config_.training.strategy_steps, StrategyLossOf(config_.training), rng);
  }

  absl::Status Evaluate(int t, IterationMetrics& m);

  // The memory that keeps samples of `kind` recorded for `player`.
  SampleMemory& MemoryOf(SampleKind kind, int player) {
    switch (kind) {
      case SampleKind::kAdvantage:
        return *advantage_[player];
      case SampleKind::kStrategy:
        return *strategy_;
      case SampleKind::kValue:
        break;
    }
    return *value_;
  }

  // Each memory's changes since the last checkpoint (or all of it; training/memory.h).
  absl::Status SaveShards(const std::string& dir) {
    for (Shard& shard : shards_) {
      if (absl::Status s = shard.chain.Write(*shard.memory, dir, previous_checkpoint_); !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

  // Collective with several ranks: rank 0 prepares iter_N.tmp, every rank writes its memory
  // shards there, and only when all succeeded does rank 0 rename it into place and replace
  // LATEST. A failure on any rank leaves the previous checkpoint as LATEST.
  // The checkpoint commits the iteration's metrics line too (metrics.json, with the time of
  // writing the checkpoint up to its publication), so that a kill between publishing and
  // appending the line to metrics.jsonl loses nothing: a resume appends it from there.
  absl::Status WriteCheckpoint(int t, IterationMetrics& m) {
    const auto c0 = Clock::now();
    const std::string temporary = dir_.StagingPath(t);
    absl::Status prepared = absl::OkStatus();
    if (rank_ == 0) prepared = dir_.PrepareStaging(t);
    if (absl::Status s = Agree(prepared, "preparing the checkpoint"); !s.ok()) return s;
    absl::Status written = SaveShards(temporary);
    if (rank_ == 0 && written.ok()) {
      written = inference::SaveNetworks(nets_, temporary + "/networks.pt");
      nlohmann::ordered_json state;
      state["iteration"] = t;
      state["strategy_trained"] = strategy_trained_;
      state["game"] = GameName(config_.run.game);
      state["world_size"] = world_;
      if (written.ok()) {
        written = WriteFileAtomically(temporary + "/state.json", state.dump(2) + "\n");
      }
      if (written.ok()) {
        written = WriteFileAtomically(temporary + "/config.yaml", DumpConfig(config_));
      }
      m.time.checkpoint = Since(c0);
      if (written.ok()) {
        written = WriteFileAtomically(temporary + "/metrics.json", m.ToJsonLine() + "\n");
      }
    }
    // A checkpoint that cannot be written whole (a full disk) is removed; LATEST still names
    // the previous one.
    auto abandon = [&](absl::Status s) {
      if (rank_ == 0) (void)RemoveTree(temporary);
      return s;
    };
    if (absl::Status s = Agree(written, "writing the checkpoint"); !s.ok()) return abandon(s);
    // Last: the checksums of every file, every rank's shards included (training/checksums.h).
    absl::Status summed = absl::OkStatus();
    if (rank_ == 0) summed = WriteChecksums(temporary, previous_checkpoint_);
    if (absl::Status s = Agree(summed, "writing the checkpoint's checksums"); !s.ok()) {
      return abandon(s);
    }
    Reach(options_.fault, FaultStep::kStaged, rank_, t);
    absl::Status published = absl::OkStatus();
    if (rank_ == 0) published = dir_.Publish(t, config_.run.keep_every);
    if (absl::Status s = Agree(published, "publishing the checkpoint"); !s.ok()) {
      return abandon(s);
    }
    published_ = true;
    // Published: the next checkpoint writes what changes from here.
    for (Shard& shard : shards_) shard.chain.Commit(*shard.memory);
    previous_checkpoint_ = dir_.CheckpointPath(t);
    Reach(options_.fault, FaultStep::kPublished, rank_, t);
    return absl::OkStatus();
  }

  // Every file of `dir` this rank reads matches checksums.json, and every file listed there is
  // present: a flipped byte, a truncated or missing segment, a stray file are errors naming it.
  absl::Status VerifyCheckpoint(const std::string& dir) const {
    const absl::StatusOr<Checksums> sums = Checksums::Load(dir);
    if (!sums.ok()) return sums.status();
    if (!sums->present()) return absl::OkStatus();  // a checkpoint of an earlier version
    const std::string mine = StreamCat(".rank", rank_, ".");
    auto other_ranks = [&](const std::string& name) {
      return world_ > 1 && name.find(".rank") != std::string::npos &&
             name.find(mine) == std::string::npos;
    };
    absl::StatusOr<std::vector<std::string>> names = ListDirectory(dir);
    if (!names.ok()) return names.status();
    for (const std::string& name : *names) {
      if (name == kChecksumsFile || other_ranks(name)) continue;
      if (absl::Status s = sums->Verify(name); !s.ok()) return s;
    }
    for (const auto& [name, sum] : sums->files()) {
      if (!PathExists(dir + "/" + name)) {
        return absl::DataLossError(
            StreamCat(dir, "/", name, ": missing (listed in ", kChecksumsFile, ")"));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<int> LoadLatestCheckpoint() {
    const absl::StatusOr<std::string> latest = dir_.Latest();
    if (!latest.ok()) return latest.status();
    const std::string dir = dir_.CheckpointsPath() + "/" + *latest;
    if (absl::Status s = VerifyCheckpoint(dir); !s.ok()) return s;
    auto state_text = ReadFileToString(dir + "/state.json");
    if (!state_text.ok()) return state_text.status();
    const absl::StatusOr<CheckpointState> state = CheckpointState::Parse(
        dir + "/state.json", *state_text, RunDirectory::IterationOf(*latest));
    if (!state.ok()) return state.status();
    if (state->game != GameName(config_.run.game)) {
      return absl::InvalidArgumentError(StreamCat(dir, ": a checkpoint of game '", state->game,
                                                  "', the config says '",
                                                  GameName(config_.run.game), "'"));
    }
    if (state->iteration > config_.run.iterations) {
      return absl::InvalidArgumentError(StreamCat(
          dir, ": a checkpoint of iteration ", state->iteration, ", past run.iterations = ",
          config_.run.iterations, " (raise it with --set run.iterations=N to continue)"));
    }
    const int saved_world = state->world_size;
    if (saved_world != world_) {
      return absl::FailedPreconditionError(
          StreamCat(dir, ": written by ", saved_world,
                    " process(es); resume it with the same number (this "
                    "run has ",
                    world_, "): each holds its own shard of the memories"));
    }
    auto nets = inference::LoadNetworks(dir + "/networks.pt", &shape_);
    if (!nets.ok()) return nets.status();
    nets_ = std::move(*nets);
    ToDevice();
    if (options_.exploit && options_.exploit->bot.empty()) {
      // The target comes from its file again: it must be the one the checkpoint played against.
      if (absl::Status s = LoadTarget(); !s.ok()) return s;
      if (absl::Status s = target_->CheckPlayedBy(nets_, dir); !s.ok()) return s;
      target_->Place(0, nets_);
    }
    for (Shard& shard : shards_) {
      if (absl::Status s = shard.chain.Load(*shard.memory, dir); !s.ok()) return s;
    }
    previous_checkpoint_ = dir;
    strategy_trained_ = state->strategy_trained;
    // The checkpoint's own metrics line (checkpoints of earlier versions have none).
    committed_metrics_.clear();
    if (PathExists(dir + "/metrics.json")) {
      absl::StatusOr<std::string> line = ReadFileToString(dir + "/metrics.json");
      if (!line.ok()) return line.status();
      committed_metrics_ = *line;
      while (!committed_metrics_.empty() && committed_metrics_.back() == '\n') {
        committed_metrics_.pop_back();
      }
    }
    return state->iteration;
  }

  void Progress(const IterationMetrics& m, int last, int done_here, double elapsed) {
    if (!options_.progress) return;
    const std::string text = ProgressLine(m, last, elapsed / done_here);
    std::fprintf(stderr, tty_ ? "\r\033[K%s" : "%s\n", text.c_str());
    if (tty_ && m.iteration == last) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

  const G& game_;
  TrainConfig config_;
  TrainOptions options_;
  std::string run_dir_;
  RunDirectory dir_;
  Devices devices_;
  GameFeatureEncoder<G> encoder_;  // the memories' views to features
  int feature_size_;
  int num_actions_;
  inference::NetworkShape shape_;
  torch::Device device_ = torch::kCPU;
  inference::NetworkSet nets_;
  std::shared_ptr<inference::ModelStore> store_;
  inference::InferenceConfig inference_;
  std::unique_ptr<traversal::TraversalRunner<G>> runner_;
  traversal::PerKind<bool> kinds_;  // what the scheme produces
  std::array<std::unique_ptr<SampleMemory>, 2> advantage_;
  std::unique_ptr<SampleMemory> strategy_;
  std::unique_ptr<SampleMemory> value_;  // the value scheme's sliding window; null otherwise
  // The memories by shard name (advantage0, advantage1, strategy and, for the value scheme,
  // value) with the segment chains that save them.
  struct Shard {
    std::string name;
    SampleMemory* memory;
    SegmentChain chain;
  };
  std::vector<Shard> shards_;
  std::string previous_checkpoint_;  // the last checkpoint written or loaded ("" for none)
  std::string committed_metrics_;    // the loaded checkpoint's metrics line ("" for none)
  Communicator& comm_;
  const int rank_;
  const int world_;
  Learner learner_;
  bool strategy_trained_ = false;
  // An exploit run's traversal slots (training/exploit.h); none in Deep CFR's self-play.
  std::optional<traversal::FixedOpponent> exploit_slots_;
  std::optional<TargetNetworks> target_;                      // its networks, outside nets_
  std::unique_ptr<traversal::ScriptedOpponent<G>> scripted_;  // a scripted target
  bool created_directory_ = false;  // a fresh run made its directory (RemoveUnstarted)
  bool published_ = false;          // a checkpoint of this invocation is published
  const bool tty_ = isatty(fileno(stderr)) != 0;
};

// Policy evaluation (training/exact_evaluation.h, training/evaluation.h): exact exploitability
// on the toy games, matches against the configured bots on Lost Cities.
template <engine::Game G>
absl::Status Trainer<G>::Evaluate(int t, IterationMetrics& m) {
  if (options_.exploit) {
    if constexpr (engine::EnumerableGame<G>) {
      // The exploiter's seats and the target's, all at once, from a set of their own.
      inference::NetworkSet both = target_->ForEvaluation(nets_);
      m.exploit =
          ExactExploitResult(game_, both, EvaluationSlots(options_.exploit->policy), device_);
    } else {
      // A scripted target needs only the exploiter's networks.
      std::shared_ptr<const inference::ModelStore> store =
          scripted_ ? store_
                    : std::make_shared<inference::ModelStore>(target_->ForEvaluation(nets_));
      absl::StatusOr<ExploitResult> result = PlayExploitMatches(
          game_, store, inference_, *options_.exploit, config_.evaluation.games,
          config_.evaluation.workers, DeriveSeed({Seed(), static_cast<uint64_t>(t), kEvaluation}));
      if (!result.ok()) return result.status();
      m.exploit = *result;
    }
    return absl::OkStatus();
  }
  if constexpr (engine::EnumerableGame<G>) {
    const engine::ExploitabilityResult result =
        ExactPolicyExploitability(game_, nets_.nets[traversal::kStrategyNetwork], device_);
    m.exploitability = result.exploitability;
    m.nash_conv = result.nash_conv;
    m.memory_mean_exploitability =
        MemoryMeanExploitability(game_, *strategy_, config_.training).exploitability;
    return absl::OkStatus();
  } else {
    absl::StatusOr<std::vector<BotResult>> eval =
        PlayEvaluationMatches(game_, store_, inference_, config_.evaluation,
                              DeriveSeed({Seed(), static_cast<uint64_t>(t), kEvaluation}));
    if (!eval.ok()) return eval.status();
    m.eval = *std::move(eval);
    return absl::OkStatus();
  }
}

}  // namespace

absl::Status Train(const TrainOptions& options) {
  if (absl::Status s = Validate(options.config); !s.ok()) return s;
  if (options.exploit) {
    if (absl::Status s = CheckExploitConfig(options.config); !s.ok()) return s;
    if (!options.exploit->bot.empty() && options.config.run.game != GameId::kLostCities) {
      return absl::InvalidArgumentError(StreamCat("the target bot ", options.exploit->bot,
                                                  " plays Lost Cities only, the run plays ",
                                                  GameName(options.config.run.game)));
    }
  }
  const absl::StatusOr<Devices> devices = ResolveDevices(options.config);
  if (!devices.ok()) return devices.status();
  absl::StatusOr<DistributedEnv> env = DistributedEnv::FromEnvironment();
  if (!env.ok()) return env.status();
  absl::StatusOr<std::unique_ptr<Communicator>> comm =
      Communicator::Connect(*env, std::chrono::seconds(options.config.distributed.timeout_s));
  if (!comm.ok()) return comm.status();
  try {
    return VisitGame(options.config, [&](const auto& game) {
      using G = std::decay_t<decltype(game)>;
      return Trainer<G>(game, options, *devices, **comm).Run();
    });
  } catch (const DistributedError& e) {
    return absl::AbortedError(StreamCat("training stopped: ", e.what()));
  } catch (const std::bad_alloc& e) {
    return absl::ResourceExhaustedError(StreamCat("training failed: ", ErrorText(e)));
  } catch (const std::exception& e) {
    return absl::InternalError(StreamCat("training failed: ", ErrorText(e)));
  }
}

}  // namespace lcfr::training
