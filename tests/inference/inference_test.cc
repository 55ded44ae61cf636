// The libtorch networks and the batched evaluator: outputs against a plain per-network
// reference, fused vs split, the two post-processing paths, save/load, devices, publication.
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <torch/cuda.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <vector>

#include "base/files.h"
#include "base/rng.h"
#include "engine/kuhn.h"
#include "engine/lost_cities.h"
#include "inference/batched_evaluator.h"
#include "inference/model_store.h"
#include "inference/networks.h"
#include "inference/policy_ops.h"
#include "traversal/evaluators.h"
#include "traversal/runner.h"

namespace lcfr::inference {
namespace {

using traversal::PolicyRequest;

NetworkShape SmallShape() {
  NetworkShape shape;
  shape.game = "test";
  shape.input_size = 20;
  shape.num_actions = 7;
  shape.config.hidden_width = 32;
  shape.config.hidden_layers = 2;
  return shape;
}

struct Batch {
  std::vector<std::vector<float>> features;
  std::vector<std::vector<float>> outputs;
  std::vector<PolicyRequest> requests;
};

// The head a traversal or a bot asks of each network (the caller's choice, not inference's).
traversal::Head HeadFor(int network) {
  if (network == traversal::kStrategyNetwork) return traversal::Head::kSoftmax;
  if (network == traversal::kValueNetwork) return traversal::Head::kRaw;
  return traversal::Head::kRegretMatching;
}

// `rows` random requests; network of row i from `networks` (with its usual head), legal masks
// random non-empty.
Batch MakeBatch(const NetworkShape& shape, int rows, const std::vector<int>& networks,
                uint64_t seed) {
  Rng rng(seed);
  Batch batch;
  batch.features.resize(rows);
  batch.outputs.resize(rows, std::vector<float>(shape.num_actions, -1.0f));
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < shape.input_size; ++j) {
      batch.features[i].push_back(static_cast<float>(rng.UniformDouble() * 2 - 1));
    }
    uint32_t legal = static_cast<uint32_t>(rng.Next()) & ((1u << shape.num_actions) - 1);
    if (legal == 0) legal = 1u << rng.Uniform(static_cast<uint32_t>(shape.num_actions));
    const int network = networks[rng.Uniform(static_cast<uint32_t>(networks.size()))];
    batch.requests.push_back(
        {network, HeadFor(network), batch.features[i], legal, batch.outputs[i]});
  }
  return batch;
}

// What each row should get: the network's own forward, then the row post-processing.
std::vector<float> Reference(NetworkSet& nets, const PolicyRequest& r) {
  c10::InferenceMode guard;
  const at::Tensor x = at::from_blob(const_cast<float*>(r.features.data()),
                                     {1, static_cast<int64_t>(r.features.size())}, at::kFloat)
                           .clone();
  const at::Tensor y = nets.nets[r.network]->forward(x).contiguous();
  std::vector<float> out(r.output.size());
  traversal::ApplyHead({y.data_ptr<float>(), out.size()}, r.legal_mask, r.head, out);
  return out;
}

std::unique_ptr<traversal::Evaluator> MakeCpuEvaluator(std::shared_ptr<const ModelStore> store,
                                                       int max_rows = 1024,
                                                       Precision precision = Precision::kFp32) {
  InferenceConfig config;
  config.max_rows = max_rows;
  config.precision = precision;
  auto evaluator = MakeBatchedEvaluator(std::move(store), config);
  CATCH_REQUIRE(evaluator.ok());
  return std::move(*evaluator);
}

CATCH_TEST_CASE("Evaluator: mixed-network batches match the per-network reference", "[inference]") {
  NetworkSet nets = NetworkSet::Create(SmallShape(), 1);
  auto store = std::make_shared<ModelStore>(nets);
  for (const auto& networks : std::vector<std::vector<int>>{{0},
                                                            {2},
                                                            {3},
                                                            {0, 1},
                                                            {0, 2},
                                                            {1, 2},
                                                            {0, 3},
                                                            {1, 3},
                                                            {0, 1, 2},
                                                            {0, 2, 3},
                                                            {0, 1, 3},
                                                            {0, 1, 2, 3}}) {
    for (int max_rows : {1024, 5}) {
      auto evaluator = MakeCpuEvaluator(store, max_rows);
      Batch batch = MakeBatch(nets.shape, 37, networks, 7);
      evaluator->Evaluate(batch.requests);
      for (const PolicyRequest& r : batch.requests) {
        const std::vector<float> expected = Reference(nets, r);
        float total = 0;
        for (size_t a = 0; a < expected.size(); ++a) {
          CATCH_CHECK(r.output[a] == Approx(expected[a]).margin(1e-5));
          if (!(r.legal_mask >> a & 1)) CATCH_CHECK(r.output[a] == 0.0f);
          total += r.output[a];
        }
        // Probabilities, except the value network's raw action values.
        if (r.network != traversal::kValueNetwork) CATCH_CHECK(total == Approx(1.0f).margin(1e-5));
      }
    }
  }
}

CATCH_TEST_CASE("Evaluator: bf16 strategies stay close to fp32", "[inference]") {
  NetworkShape shape = SmallShape();
  shape.config.hidden_width = 128;
  NetworkSet nets = NetworkSet::Create(shape, 6);
  auto store = std::make_shared<ModelStore>(nets);
  auto bf16 = MakeCpuEvaluator(store, 1024, Precision::kBf16);
  Batch batch = MakeBatch(nets.shape, 64, {0, 1, 2}, 12);
  bf16->Evaluate(batch.requests);
  double worst = 0;
  for (const PolicyRequest& r : batch.requests) {
    const std::vector<float> expected = Reference(nets, r);
    for (size_t a = 0; a < expected.size(); ++a) {
      worst = std::max(worst, static_cast<double>(std::abs(r.output[a] - expected[a])));
      if (!(r.legal_mask >> a & 1)) CATCH_CHECK(r.output[a] == 0.0f);
    }
  }
  CATCH_INFO("largest probability difference bf16 vs fp32: " << worst);
  CATCH_CHECK(worst < 0.05);
  CATCH_CHECK_THAT(std::string(ParsePrecision("fp16").status().message()),
                   Catch::Contains("unknown precision 'fp16' (expected fp32, bf16, auto)"));
}

CATCH_TEST_CASE("Evaluator: fused and per-network split give the same strategies", "[inference]") {
  NetworkSet nets = NetworkSet::Create(SmallShape(), 2);
  auto store = std::make_shared<ModelStore>(nets);
  auto fused = MakeCpuEvaluator(store);
  auto inner = MakeCpuEvaluator(store);
  traversal::SplitByNetworkEvaluator split(inner.get());
  Batch a = MakeBatch(nets.shape, 64, {0, 1, 2}, 3);
  Batch b = MakeBatch(nets.shape, 64, {0, 1, 2}, 3);
  fused->Evaluate(a.requests);
  split.Evaluate(b.requests);
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    for (size_t k = 0; k < a.outputs[i].size(); ++k) {
      CATCH_CHECK(a.outputs[i][k] == Approx(b.outputs[i][k]).margin(1e-5));
    }
  }
}

CATCH_TEST_CASE("Policy ops: the tensor path equals the row path", "[inference]") {
  c10::InferenceMode guard;
  at::manual_seed(4);
  const int64_t blocks = 4, rows = 50, actions = 6;
  at::Tensor outputs = at::randn({blocks, rows, actions});
  // Some rows with no positive advantage, some with ties, to exercise both fallbacks.
  outputs.select(1, 0).fill_(-1.0f);
  outputs.select(1, 1).fill_(-2.0f);
  outputs.select(1, 2).copy_(-outputs.select(1, 2).abs());
  Rng rng(9);
  at::Tensor mask = at::zeros({blocks, rows, actions});
  std::vector<uint32_t> legal(blocks * rows);
  for (int64_t i = 0; i < blocks * rows; ++i) {
    legal[i] = static_cast<uint32_t>(rng.Next() % 63) + 1;
    for (int64_t a = 0; a < actions; ++a) {
      mask.view({-1, actions})[i][a] = static_cast<float>(legal[i] >> a & 1);
    }
  }
  using traversal::Head;
  for (const std::vector<Head>& heads : std::vector<std::vector<Head>>{
           {Head::kRegretMatching, Head::kSoftmax, Head::kRaw, Head::kRegretMatchingUniform},
           {Head::kRegretMatchingUniform, Head::kRegretMatchingUniform,
            Head::kRegretMatchingUniform, Head::kRegretMatchingUniform},
           {Head::kSoftmax, Head::kRegretMatching, Head::kRegretMatching, Head::kRaw}}) {
    const at::Tensor probs = PolicyFromOutputs(outputs, mask, heads).contiguous();
    const at::Tensor flat_out = outputs.contiguous().view({-1, actions});
    for (int64_t i = 0; i < blocks * rows; ++i) {
      std::vector<float> expected(actions);
      traversal::ApplyHead({flat_out[i].data_ptr<float>(), static_cast<size_t>(actions)}, legal[i],
                           heads[i / rows], expected);
      for (int64_t a = 0; a < actions; ++a) {
        CATCH_CHECK(probs.view({-1, actions})[i][a].item<float>() ==
                    Approx(expected[a]).margin(1e-6));
      }
    }
  }
}

CATCH_TEST_CASE("Networks: save and load round trip; mismatches are errors", "[inference]") {
  // No std::filesystem in binaries that link the torch wheel (inference/README.md).
  char dir_template[] = "/tmp/lcfr_inference_test_XXXXXX";
  const std::string dir = ::mkdtemp(dir_template);
  const std::string path = dir + "/nets.pt";
  NetworkSet nets = NetworkSet::Create(SmallShape(), 5);
  CATCH_REQUIRE(SaveNetworks(nets, path).ok());
  // No temporary is left beside it (base/atomic_file.h): the directory holds the file alone.
  const absl::StatusOr<std::vector<std::string>> names = lcfr::ListDirectory(dir);
  CATCH_REQUIRE(names.ok());
  CATCH_CHECK(*names == std::vector<std::string>{"nets.pt"});
  const NetworkShape expected = SmallShape();
  auto loaded = LoadNetworks(path, &expected);
  CATCH_REQUIRE(loaded.ok());
  c10::InferenceMode guard;
  const at::Tensor x = at::randn({4, expected.input_size});
  for (int n = 0; n < kNumNetworks; ++n) {
    CATCH_CHECK(at::equal(nets.nets[n]->forward(x), loaded->nets[n]->forward(x)));
  }
  NetworkShape other = expected;
  other.config.hidden_width = 64;
  auto mismatch = LoadNetworks(path, &other);
  CATCH_REQUIRE(!mismatch.ok());
  CATCH_CHECK_THAT(
      std::string(mismatch.status().message()),
      Catch::Contains("holds networks for test (encoding 0): 20 -> mlp 32x2 relu -> 7, expected "
                      "test (encoding 0): 20 -> mlp 64x2 relu -> 7"));
  // The same sizes under another encoding version: refused, both versions named.
  NetworkShape newer = expected;
  newer.encoding_version = 2;
  auto reencoded = LoadNetworks(path, &newer);
  CATCH_REQUIRE(!reencoded.ok());
  CATCH_CHECK_THAT(
      std::string(reencoded.status().message()),
      Catch::Contains("(encoding 0): 20 -> mlp 32x2 relu -> 7, expected test (encoding 2)"));
  CATCH_CHECK(LoadNetworks(dir + "/absent.pt").status().code() == absl::StatusCode::kNotFound);
  std::ofstream(dir + "/garbage.pt") << "not a checkpoint";
  auto garbage = LoadNetworks(dir + "/garbage.pt");
  CATCH_REQUIRE(!garbage.ok());
  CATCH_CHECK_THAT(std::string(garbage.status().message()), Catch::Contains("not a networks file"));
  // A width-64 archive whose header says width 32: the header's shapes are checked, since
  // loading would take the archive's own.
  NetworkSet wide = NetworkSet::Create(other, 6);
  wide.shape = expected;
  CATCH_REQUIRE(SaveNetworks(wide, dir + "/lying.pt").ok());
  auto lying = LoadNetworks(dir + "/lying.pt", &expected);
  CATCH_REQUIRE(!lying.ok());
  CATCH_CHECK_THAT(std::string(lying.status().message()),
                   Catch::Contains("lying.pt: network0 tensor") &&
                       Catch::Contains("has shape [64, 20], the header") &&
                       Catch::Contains("says [32, 20]"));
  // Non-finite weights are refused, naming the tensor.
  NetworkSet broken = NetworkSet::Create(expected, 7);
  {
    torch::NoGradGuard no_grad;
    broken.nets[2]->parameters()[1].fill_(std::numeric_limits<float>::quiet_NaN());
  }
  CATCH_REQUIRE(SaveNetworks(broken, dir + "/nan.pt").ok());
  auto nan = LoadNetworks(dir + "/nan.pt", &expected);
  CATCH_REQUIRE(!nan.ok());
  CATCH_CHECK_THAT(
      std::string(nan.status().message()),
      Catch::Contains("nan.pt: network2 tensor") && Catch::Contains("holds non-finite values"));
  // A truncated archive: one line, no libtorch backtrace.
  {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(dir + "/cut.pt", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  auto cut = LoadNetworks(dir + "/cut.pt", &expected);
  CATCH_REQUIRE(!cut.ok());
  CATCH_CHECK(std::string(cut.status().message()).find('\n') == std::string::npos);
  CATCH_CHECK(std::string(cut.status().message()).find("frame #") == std::string::npos);
  // Mutations of a valid archive (libtorch's zip reader and pickle parse it; this project builds
  // no libFuzzer target against libtorch, fuzz/README.md): bytes flipped, cut, or spliced. Each
  // load returns, ok or an error of one line; none crashes.
  {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    uint64_t state = 12345;
    auto next = [&state] {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      return state >> 33;
    };
    int refused = 0;
    for (int trial = 0; trial < 300; ++trial) {
      std::string mutated = bytes;
      const int kind = trial % 3;
      if (kind == 0) {
        for (int k = 0; k < 1 + trial % 8; ++k)
          mutated[next() % mutated.size()] ^= static_cast<char>(1 + next() % 255);
      } else if (kind == 1) {
        mutated.resize(next() % mutated.size());
      } else {
        const size_t at = next() % mutated.size(), len = next() % 64;
        mutated.insert(at, bytes.substr(next() % bytes.size(), len));
      }
      std::ofstream(dir + "/mutated.pt", std::ios::binary | std::ios::trunc) << mutated;
      auto result = LoadNetworks(dir + "/mutated.pt", &expected);
      if (!result.ok()) {
        ++refused;
        CATCH_CHECK(std::string(result.status().message()).find('\n') == std::string::npos);
      }
    }
    CATCH_CHECK(refused > 100);  // most mutations are caught by the zip reader's CRCs
  }
  for (const char* file :
       {"/nets.pt", "/garbage.pt", "/lying.pt", "/nan.pt", "/cut.pt", "/mutated.pt"}) {
    std::remove((dir + file).c_str());
  }
  ::rmdir(dir.c_str());
}

CATCH_TEST_CASE("Devices: cuda where there is none is a clear error", "[inference]") {
  CATCH_CHECK(ResolveDevice(Device::kCpu).value() == Device::kCpu);
  CATCH_CHECK(!ParseDevice("gpu").ok());
  if (torch::cuda::is_available()) {
    CATCH_CHECK(ResolveDevice(Device::kCuda).value() == Device::kCuda);
    CATCH_CHECK(ResolveDevice(Device::kAuto).value() == Device::kCuda);
  } else {
    const auto cuda = ResolveDevice(Device::kCuda);
    CATCH_REQUIRE(!cuda.ok());
    CATCH_CHECK_THAT(std::string(cuda.status().message()),
                     Catch::Contains("device 'cuda' requested"));
    CATCH_CHECK(ResolveDevice(Device::kAuto).value() == Device::kCpu);
    NetworkSet nets = NetworkSet::Create(SmallShape(), 1);
    InferenceConfig config;
    config.device = Device::kCuda;
    CATCH_CHECK(!MakeBatchedEvaluator(std::make_shared<ModelStore>(nets), config).ok());
  }
  InferenceConfig bad;
  bad.intra_op_threads = 0;
  CATCH_CHECK_THAT(std::string(bad.Validate().message()), Catch::Contains("intra_op_threads = 0"));
}

// Runs only where a CUDA device is visible (scripts/gpu_check.sh builds without tests; a CUDA
// workstation's scripts/test.sh runs it): the CUDA path against the per-network reference.
CATCH_TEST_CASE("Evaluator: the CUDA path matches the reference", "[inference][cuda]") {
  if (!torch::cuda::is_available()) {
    CATCH_WARN("no CUDA device: the CUDA path is compiled but not exercised here");
    return;
  }
  NetworkSet nets = NetworkSet::Create(SmallShape(), 21);
  auto store = std::make_shared<ModelStore>(nets);
  for (bool graphs : {false, true}) {
    InferenceConfig config;
    config.device = Device::kCuda;
    config.precision = Precision::kFp32;
    config.cuda_graphs = graphs;
    auto evaluator = MakeBatchedEvaluator(store, config);
    CATCH_REQUIRE(evaluator.ok());
    for (int round = 0; round < 3; ++round) {  // graphs: capture, then replay
      Batch batch = MakeBatch(nets.shape, 29 + round, {0, 1, 2}, 40 + round);
      (*evaluator)->Evaluate(batch.requests);
      for (const PolicyRequest& r : batch.requests) {
        const std::vector<float> expected = Reference(nets, r);
        for (size_t a = 0; a < expected.size(); ++a) {
          CATCH_CHECK(r.output[a] == Approx(expected[a]).margin(1e-4));
        }
      }
    }
  }
}

CATCH_TEST_CASE("Publication: evaluators switch to new weights between batches only",
                "[inference]") {
  NetworkSet trainer = NetworkSet::Create(SmallShape(), 8);
  auto store = std::make_shared<ModelStore>(trainer);
  auto evaluator = MakeCpuEvaluator(store);
  Batch before = MakeBatch(trainer.shape, 16, {0, 1, 2}, 1);
  evaluator->Evaluate(before.requests);
  // The trainer changes its networks in place: nothing changes until it publishes.
  {
    c10::InferenceMode guard;
    for (auto& net : trainer.nets) {
      for (auto& p : net->parameters()) p.add_(0.5);
    }
  }
  Batch unpublished = MakeBatch(trainer.shape, 16, {0, 1, 2}, 1);
  evaluator->Evaluate(unpublished.requests);
  CATCH_CHECK(unpublished.outputs == before.outputs);
  const uint64_t version = store->version();
  store->Publish(trainer);
  CATCH_CHECK(store->version() == version + 1);
  Batch after = MakeBatch(trainer.shape, 16, {0, 1, 2}, 1);
  evaluator->Evaluate(after.requests);
  CATCH_CHECK(after.outputs != before.outputs);
  for (const PolicyRequest& r : after.requests) {
    const std::vector<float> expected = Reference(trainer, r);
    for (size_t a = 0; a < expected.size(); ++a)
      CATCH_CHECK(r.output[a] == Approx(expected[a]).margin(1e-5));
  }
}

CATCH_TEST_CASE("Traversal with the batched evaluator: Lost Cities, fibers vs recursion",
                "[inference]") {
  engine::LostCities game;
  NetworkShape shape;
  shape.game = "lost-cities";
  shape.input_size = game.EncodingSize();
  shape.num_actions = game.num_actions();
  shape.config.hidden_width = 64;
  shape.config.hidden_layers = 2;
  auto store = std::make_shared<ModelStore>(NetworkSet::Create(shape, 3));
  auto factory = [&](int) { return MakeCpuEvaluator(store); };
  traversal::RunnerConfig config;
  config.workers = 1;
  config.cfr = traversal::FullRecordingCfrConfig();
  config.seed = 5;
  config.cfr.hybrid_depth = 1;
  std::vector<traversal::CollectingSink> sinks;
  std::vector<traversal::WorkerStats> stats;
  for (bool recursive : {true, false}) {
    config.scheduling = recursive ? traversal::Scheduling::kDirect : traversal::Scheduling::kFibers;
    config.worker_chunk_size = 8;
    traversal::TraversalRunner<engine::LostCities> runner(game, config, factory);
    traversal::CollectingSink sink(traversal::ShapeOf(game));
    runner.Run(1, 0, 8, sink);
    sinks.push_back(std::move(sink));
    stats.push_back(runner.TotalStats());
  }
  CATCH_CHECK(stats[0].rows.Mean() == 1.0);
  // Width 8: the batcher serves several traversals per forward (fewer as they finish).
  CATCH_CHECK(stats[1].rows.Mean() > 4.0);
  CATCH_CHECK(stats[1].rows.Percentile(0.5) >= 6);
  CATCH_CHECK(stats[0].policy_calls == stats[1].policy_calls);
  CATCH_REQUIRE(sinks[0][traversal::SampleKind::kAdvantage].size() ==
                sinks[1][traversal::SampleKind::kAdvantage].size());
  // Same traversals, same samples up to float rounding of batched vs one-row GEMMs.
  for (size_t i = 0; i < sinks[0][traversal::SampleKind::kAdvantage].size(); ++i) {
    for (int a = 0; a < game.num_actions(); ++a) {
      CATCH_CHECK(sinks[0][traversal::SampleKind::kAdvantage].target(i)[a] ==
                  Approx(sinks[1][traversal::SampleKind::kAdvantage].target(i)[a]).margin(1e-4));
    }
  }
}

}  // namespace
}  // namespace lcfr::inference
