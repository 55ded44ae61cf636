// lcfr sweep: the real traversal with the real batched evaluator for a list of interleave
// widths (worker_chunk_size), against the plain recursion; a table, a CSV and a PNG plot.
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "apps/gnuplot.h"
#include "base/atomic_file.h"
#include "base/error_text.h"
#include "base/strings.h"
#include "engine/lost_cities.h"
#include "fmt/core.h"
#include "inference/batched_evaluator.h"
#include "inference/model_store.h"
#include "training/compose.h"
#include "traversal/runner.h"

namespace lcfr::apps {
namespace {

struct SweepOptions {
  std::vector<int> widths = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  int workers = 1;
  int traversals = 32;
  bool recursive = true;
  int hybrid_depth = 1;
  uint64_t seed = 1;
  int hidden = 512;
  int layers = 3;
  std::string device = "cpu";
  std::string precision = "auto";
  int intra_op_threads = 1;
  bool cuda_graphs = false;
  std::string csv;
  std::string plot;
  std::vector<std::string> rules;
};

struct Row {
  std::string width;  // a number, or "recursive"
  int workers = 0;
  int64_t traversals = 0;
  double seconds = 0;
  traversal::WorkerStats stats;

  double traversals_per_s() const { return static_cast<double>(traversals) / seconds; }
  double policy_calls_per_s() const { return static_cast<double>(stats.policy_calls) / seconds; }
  double us_per_row() const {
    return stats.policy_calls == 0
               ? 0.0
               : 1e6 * stats.evaluator_seconds() / static_cast<double>(stats.policy_calls);
  }
  double share(double part) const {
    const double total = stats.total_seconds();
    return total > 0 ? part / total : 0.0;
  }
};

std::string Csv(const std::vector<Row>& rows) {
  std::string out =
      "width,workers,traversals_per_s,policy_calls_per_s,rows_per_forward_mean,"
      "rows_per_forward_p95,us_per_row,forward_share\n";
  for (const Row& r : rows) {
    out += fmt::format("{},{},{:.3f},{:.1f},{:.2f},{},{:.3f},{:.4f}\n", r.width, r.workers,
                       r.traversals_per_s(), r.policy_calls_per_s(), r.stats.rows.Mean(),
                       r.stats.rows.Percentile(0.95), r.us_per_row(),
                       r.share(r.stats.evaluator_seconds()));
  }
  return out;
}

// Throughput and realized batch size against width (log2 axis); the recursion as a line.
absl::Status Plot(const std::vector<Row>& rows, const std::string& path) {
  if (!GnuplotAvailable()) {
    return absl::FailedPreconditionError(
        "--plot needs gnuplot (scripts/setup.sh installs gnuplot-nox)");
  }
  std::string table;
  double recursive = 0;
  for (const Row& r : rows) {
    if (r.width == "recursive") {
      recursive = r.policy_calls_per_s();
      continue;
    }
    table +=
        fmt::format("{} {:.1f} {:.2f}\n", r.width, r.policy_calls_per_s(), r.stats.rows.Mean());
  }
  GnuplotChart chart;
  chart.height = 560;
  chart.data.emplace_back("sweep.dat", table);
  chart.script =
      "set title 'lcfr sweep: policy calls/s and rows per forward against worker_chunk_size'\n"
      "set logscale x 2\nset xlabel 'worker_chunk_size (fibers per worker)'\n"
      "set ylabel 'policy calls/s'\nset y2label 'rows per forward (mean)'\n"
      "set ytics nomirror\nset y2tics\nset grid\nset key top left\nset yrange [0:*]\n"
      "set y2range [0:*]\n"
      "plot 'sweep.dat' using 1:2 with linespoints lw 2 title 'policy calls/s (fibers)', "
      "'sweep.dat' using 1:3 axes x1y2 with linespoints dt 2 title 'rows per forward'";
  if (recursive > 0) {
    chart.script +=
        fmt::format(", {:.1f} with lines lc rgb 'gray' title 'plain recursion'", recursive);
  }
  return RenderPng(chart, path);
}

int RunSweep(const SweepOptions& opts) {
  const absl::StatusOr<engine::Rules> rules = RulesFromOverrides(opts.rules);
  if (!rules.ok()) {
    PrintError("sweep", std::string(rules.status().message()));
    return kExitBadInput;
  }
  const absl::StatusOr<inference::Device> requested = inference::ParseDevice(opts.device);
  if (!requested.ok()) {
    PrintError("sweep", StrCat("--device: ", requested.status().message()));
    return kExitBadInput;
  }
  const absl::StatusOr<inference::Precision> precision = inference::ParsePrecision(opts.precision);
  if (!precision.ok()) {
    PrintError("sweep", StrCat("--precision: ", precision.status().message()));
    return kExitBadInput;
  }
  inference::InferenceConfig inference;
  inference.precision = *precision;
  inference.intra_op_threads = opts.intra_op_threads;
  inference.cuda_graphs = opts.cuda_graphs;
  if (absl::Status s = inference.Validate(); !s.ok()) {
    PrintError("sweep", std::string(s.message()));
    return kExitBadInput;
  }
  if (auto device = inference::ResolveDevice(*requested); device.ok()) {
    inference.device = *device;
  } else {
    PrintError("sweep", std::string(device.status().message()));
    return kExitBadInput;
  }
  const engine::LostCities game(*rules);
  inference::NetworkShape shape;
  shape.game = "lost-cities";
  shape.encoding_version = game.EncodingVersion();
  shape.input_size = game.EncodingSize();
  shape.num_actions = game.num_actions();
  shape.config.hidden_width = opts.hidden;
  shape.config.hidden_layers = opts.layers;
  if (absl::Status s = shape.config.Validate(); !s.ok()) {
    PrintError("sweep", std::string(s.message()));
    return kExitBadInput;
  }
  std::shared_ptr<inference::ModelStore> store;
  try {
    store = inference::CreateRandomModelStore(shape, opts.seed);
  } catch (const std::exception& e) {
    PrintError("sweep", StrCat("cannot allocate the network (--hidden ", opts.hidden, ", --layers ",
                               opts.layers, "): ", ErrorText(e)));
    return kExitFailure;
  }
  fmt::print(stderr, "sweep: {} on {} ({} precision), {} worker(s), hybrid depth {}\n",
             shape.ToString(), opts.device, opts.precision, opts.workers, opts.hybrid_depth);

  std::vector<std::string> widths;
  if (opts.recursive) widths.push_back("recursive");
  for (int w : opts.widths) widths.push_back(std::to_string(w));
  std::vector<Row> rows;
  for (const std::string& width : widths) {
    traversal::RunnerConfig config;
    config.workers = opts.workers;
    const bool recursive = width == "recursive";
    config.scheduling = recursive ? traversal::Scheduling::kDirect : traversal::Scheduling::kFibers;
    config.worker_chunk_size = recursive ? 1 : std::stoi(width);
    config.seed = opts.seed;
    config.cfr = traversal::FullRecordingCfrConfig();
    config.cfr.scheme = traversal::Scheme::kHybrid;
    config.cfr.hybrid_depth = opts.hybrid_depth;
    config.cfr.strategy_sample_rate = 1.0 / 16;
    if (absl::Status s = config.Validate(); !s.ok()) {
      PrintError("sweep", std::string(s.message()));
      return kExitBadInput;
    }
    absl::StatusOr<training::Evaluators> evaluators =
        training::MakeEvaluators(store, inference, config.workers);
    if (!evaluators.ok()) {
      PrintError("sweep", std::string(evaluators.status().message()));
      return kExitFailure;
    }
    std::unique_ptr<traversal::TraversalRunner<engine::LostCities>> built;
    try {
      built = std::make_unique<traversal::TraversalRunner<engine::LostCities>>(
          game, config, training::HandOut(*evaluators));
    } catch (const std::exception& e) {
      PrintError("sweep", StrCat("width ", width, ": ", ErrorText(e)));
      return kExitFailure;
    }
    traversal::TraversalRunner<engine::LostCities>& runner = *built;
    // Enough traversals to keep every fiber busy: at least two rounds of the width.
    const int64_t count =
        recursive
            ? opts.traversals
            : std::max<int64_t>(opts.traversals, 2LL * config.worker_chunk_size * opts.workers);
    traversal::CollectingSink sink(traversal::ShapeOf(game));
    const auto start = std::chrono::steady_clock::now();
    try {
      runner.Run(1, 0, count, sink);
    } catch (const std::exception& e) {
      PrintError("sweep", StrCat("width ", width, ": ", ErrorText(e)));
      return kExitFailure;
    }
    Row row;
    row.width = width;
    row.workers = opts.workers;
    row.traversals = count;
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    row.stats = runner.TotalStats();
    fmt::print(stderr, "  width {:>9}: {} traversals in {:.1f} s\n", width, count, row.seconds);
    rows.push_back(row);
  }

  const Row* width1 = nullptr;
  const Row* recursion = nullptr;
  for (const Row& r : rows) {
    if (r.width == "1") width1 = &r;
    if (r.width == "recursive") recursion = &r;
  }
  fmt::print("{:>9} {:>7} {:>12} {:>14} {:>8} {:>9} {:>9} {:>7} {:>7} {:>9} {:>8} {:>8} {:>8}\n",
             "width", "workers", "traversals/s", "policy calls/s", "vs w=1", "vs recur",
             "rows mean", "p50", "p95", "us/row", "forward", "game", "sched");
  for (const Row& r : rows) {
    auto ratio = [&](const Row* base) {
      return base ? fmt::format("{:.2f}x", r.policy_calls_per_s() / base->policy_calls_per_s())
                  : std::string("-");
    };
    fmt::print(
        "{:>9} {:>7} {:>12.2f} {:>14.0f} {:>8} {:>9} {:>9.1f} {:>7} {:>7} {:>9.2f} {:>7.1f}% "
        "{:>7.1f}% {:>7.1f}%\n",
        r.width, r.workers, r.traversals_per_s(), r.policy_calls_per_s(), ratio(width1),
        ratio(recursion), r.stats.rows.Mean(), r.stats.rows.Percentile(0.5),
        r.stats.rows.Percentile(0.95), r.us_per_row(), 100 * r.share(r.stats.evaluator_seconds()),
        100 * r.share(r.stats.game_seconds()), 100 * r.share(r.stats.scheduler_seconds()));
  }
  if (!opts.csv.empty()) {
    if (absl::Status s = WriteFileAtomically(opts.csv, Csv(rows)); !s.ok()) {
      PrintError("sweep", std::string(s.message()));
      return kExitFailure;
    }
    fmt::print(stderr, "sweep: wrote {}\n", opts.csv);
  }
  if (!opts.plot.empty()) {
    if (absl::Status s = Plot(rows, opts.plot); !s.ok()) {
      PrintError("sweep", std::string(s.message()));
      return kExitFailure;
    }
    fmt::print(stderr, "sweep: wrote {}\n", opts.plot);
  }
  return kExitOk;
}

}  // namespace

CommandFn AddSweepCommand(CLI::App& app) {
  auto opts = std::make_shared<SweepOptions>();
  CLI::App* sub = app.add_subcommand(
      "sweep",
      "Measure Lost Cities CFR traversals with the batched network evaluator for a list of "
      "interleave widths (worker_chunk_size) against the plain recursion: throughput, realized "
      "batch sizes and where the time goes. Networks are freshly initialised.");
  sub->add_option("--widths", opts->widths, "worker_chunk_size values to measure")
      ->delimiter(',')
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  sub->add_option("--workers", opts->workers, "worker threads, each with its own evaluator")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  sub->add_option("--traversals", opts->traversals,
                  "traversals per width (at least 2 x width x workers are run)")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  sub->add_flag("!--no-recursive", opts->recursive, "skip the plain-recursion baseline");
  sub->add_option("--depth", opts->hybrid_depth,
                  "traverser decisions expanded before sampling (hybrid scheme)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  sub->add_option("--hidden", opts->hidden, "hidden units per layer")->capture_default_str();
  sub->add_option("--layers", opts->layers, "hidden layers")->capture_default_str();
  sub->add_option("--device", opts->device, "cpu, cuda or auto")->capture_default_str();
  sub->add_option("--precision", opts->precision, "fp32, bf16 or auto")->capture_default_str();
  sub->add_option("--intra-op-threads", opts->intra_op_threads, "libtorch CPU threads per forward")
      ->capture_default_str();
  sub->add_flag("--cuda-graphs", opts->cuda_graphs, "replay CUDA graphs per batch-size bucket");
  sub->add_option("--seed", opts->seed, "seed of the networks and the traversals")
      ->check(NonNegativeInteger())
      ->capture_default_str();
  sub->add_option("--csv", opts->csv,
                  "write the table as CSV (width,workers,traversals_per_s,policy_calls_per_s,"
                  "rows_per_forward_mean,rows_per_forward_p95,us_per_row,forward_share)");
  sub->add_option("--plot", opts->plot, "write a PNG plot (needs gnuplot)");
  sub->add_option("--rule", opts->rules, "rule override key=value (configs/README.md)");
  return [opts] { return RunSweep(*opts); };
}

}  // namespace lcfr::apps
