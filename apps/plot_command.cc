// lcfr plot RUN_DIR: PNG charts of a run's metrics.jsonl (gnuplot): evaluation results against
// iterations and wall time, losses against iterations, and throughput.
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "apps/gnuplot.h"
#include "base/files.h"
#include "base/strings.h"
#include "fmt/core.h"
#include "training/iteration_metrics.h"

namespace lcfr::apps {
namespace {

struct PlotOptions {
  std::string run_dir;
  std::string out_dir;  // default: RUN_DIR/plots
};

int RunPlot(const PlotOptions& opts) {
  if (absl::Status dir = CheckDirectory(opts.run_dir); !dir.ok()) {
    PrintError("plot", StrCat(dir.message(), " (a run directory is expected)"));
    return kExitBadInput;
  }
  const std::string metrics = opts.run_dir + "/metrics.jsonl";
  std::ifstream in(metrics);
  if (!in) {
    PrintError("plot", StrCat(metrics, ": cannot open (is it a run directory?)"));
    return kExitBadInput;
  }
  if (!GnuplotAvailable()) {
    PrintError("plot", "needs gnuplot (scripts/setup.sh installs gnuplot-nox)");
    return kExitFailure;
  }
  // Columns per iteration: losses, throughput; evaluation series by name.
  std::string losses, throughput;
  bool has_value_loss = false;               // the value scheme
  std::map<std::string, std::string> evals;  // name -> "iteration value low high" lines
  // The same against the run's wall time: "minutes value low high", minutes being the sum of
  // every phase time up to the end of that iteration.
  std::map<std::string, std::string> evals_time;
  double wall_s = 0;
  // Per evaluation.policies entry and bot, the same; the default policy's expedition statistics
  // per bot: "iteration colors_opened positive_share score_per_color wagers_below_cost".
  std::map<std::pair<std::string, std::string>, std::string> policies;
  std::map<std::string, std::string> expeditions;
  // Exploit runs: "iteration gain low high best_response" (NaN where there is none).
  std::string exploit;
  bool has_best_response = false;
  int line_no = 0, iterations = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    const absl::StatusOr<training::IterationMetrics> m =
        training::IterationMetrics::FromJsonLine(line);
    if (!m.ok()) {
      PrintError("plot", StrCat(metrics, ":", line_no, ": ", m.status().message()));
      return kExitBadInput;
    }
    ++iterations;
    const int t = m->iteration;
    const auto& times = m->time;
    wall_s += times.traversal + times.advantage_training + times.value_training +
              times.strategy_training + times.evaluation + times.checkpoint.value_or(0.0);
    const double minutes = wall_s / 60;
    auto optional = [](const std::optional<double>& v) {
      return v ? fmt::format("{}", *v) : std::string("NaN");
    };
    has_value_loss |= m->value_loss.has_value();
    losses += fmt::format("{} {} {} {} {}\n", t, m->advantage_loss[0], m->advantage_loss[1],
                          optional(m->strategy_loss), optional(m->value_loss));
    throughput += fmt::format("{} {} {}\n", t, m->policy_calls_per_s, m->rows_per_forward);
    if (m->exploitability) {
      evals["exploitability"] += fmt::format("{} {} {} {}\n", t, *m->exploitability,
                                             *m->exploitability, *m->exploitability);
      evals_time["exploitability"] += fmt::format("{} {} {} {}\n", minutes, *m->exploitability,
                                                  *m->exploitability, *m->exploitability);
    }
    if (const auto& v = m->memory_mean_exploitability) {
      evals["memory mean"] += fmt::format("{} {} {} {}\n", t, *v, *v, *v);
      evals_time["memory mean"] += fmt::format("{} {} {} {}\n", minutes, *v, *v, *v);
    }
    if (const auto& e = m->exploit) {
      // Exact on the toy games (no interval; the best response beside it).
      exploit += fmt::format("{} {} {} {} {}\n", t, e->gain, e->games ? e->gain_low : e->gain,
                             e->games ? e->gain_high : e->gain, optional(e->best_response));
      has_best_response |= e->best_response.has_value();
    }
    if (m->eval) {
      for (const training::BotResult& r : *m->eval) {
        const std::string row = fmt::format("{} {} {} {}\n", t, r.win_rate, r.ci_low, r.ci_high);
        if (!r.policy.empty()) {
          policies[{r.policy, r.opponent}] += row;
          continue;
        }
        evals[r.opponent] += row;
        evals_time[r.opponent] +=
            fmt::format("{} {} {} {}\n", minutes, r.win_rate, r.ci_low, r.ci_high);
        expeditions[r.opponent] +=
            fmt::format("{} {} {} {} {}\n", t, r.colors_opened, r.positive_share, r.score_per_color,
                        r.wagers_below_cost);
      }
    }
  }
  if (iterations == 0) {
    PrintError("plot", StrCat(metrics, ": no iterations yet, nothing to plot"));
    return kExitBadInput;
  }
  const std::string out_dir = opts.out_dir.empty() ? opts.run_dir + "/plots" : opts.out_dir;
  if (absl::Status s = MakeDirectories(out_dir); !s.ok()) {
    PrintError("plot", std::string(s.message()));
    return kExitFailure;
  }
  std::vector<std::pair<std::string, GnuplotChart>> charts;
  charts.reserve(8);
  auto chart_of = [](std::string script, std::string data_name, std::string data) {
    GnuplotChart chart;
    chart.script = std::move(script);
    chart.data.emplace_back(std::move(data_name), std::move(data));
    return chart;
  };
  charts.emplace_back(
      "losses.png",
      chart_of(StrCat("set grid\nset key outside right\nset title 'losses'\n"
                      "set xlabel 'iteration'\nset logscale y\n"
                      "plot 'losses.dat' u 1:2 w l lw 2 t 'advantage loss, player 0', "
                      "'losses.dat' u 1:3 w l lw 2 t 'advantage loss, player 1', "
                      "'losses.dat' u 1:4 w lp t 'strategy loss'",
                      has_value_loss ? ", 'losses.dat' u 1:5 w l lw 2 t 'value loss'" : ""),
               "losses.dat", losses));
  charts.emplace_back("throughput.png",
                      chart_of("set grid\nset key outside right\n"
                               "set title 'traversal throughput'\nset xlabel 'iteration'\n"
                               "set ylabel 'policy calls/s'\nset y2label 'rows per forward'\n"
                               "set ytics nomirror\nset y2tics\n"
                               "plot 'throughput.dat' u 1:2 w l lw 2 t 'policy calls/s', "
                               "'throughput.dat' u 1:3 axes x1y2 w l dt 2 t 'rows per forward'",
                               "throughput.dat", throughput));
  if (!evals.empty()) {
    const bool toy = evals.count("exploitability") > 0;
    // The same series against iterations and against wall time.
    for (const bool against_time : {false, true}) {
      GnuplotChart chart;
      std::string plots;
      for (const auto& [name, series] : against_time ? evals_time : evals) {
        // Data files are numbered: an opponent's name never becomes part of a file name.
        const std::string file = fmt::format("eval{}.dat", chart.data.size());
        chart.data.emplace_back(file, series);
        plots +=
            fmt::format("{}'{}' u 1:2:3:4 w yerrorlines t '{}'", plots.empty() ? "" : ", ", file,
                        !toy                       ? "win rate vs " + GnuplotLabel(name)
                        : name == "exploitability" ? std::string("strategy network")
                                                   : std::string("strategy memory mean"));
      }
      chart.script =
          StrCat("set grid\nset key outside right\n",
                 toy ? "set title 'exact exploitability'\n"
                       "set ylabel 'exploitability'\nset logscale y\n"
                     : "set title 'win rate of the network (default policy, 95% Wilson)'\n"
                       "set ylabel 'win rate'\nset yrange [0:1]\n",
                 against_time ? "set xlabel 'wall time (minutes, all phases)'\n"
                              : "set xlabel 'iteration'\n",
                 "plot ", plots);
      const std::string name = toy ? "exploitability" : "win_rates";
      charts.emplace_back(StrCat(name, against_time ? "_time.png" : ".png"), std::move(chart));
    }
  }
  if (!policies.empty()) {
    GnuplotChart chart;
    std::string plots;
    for (const auto& [key, series] : policies) {
      const std::string file = fmt::format("policy{}.dat", chart.data.size());
      chart.data.emplace_back(file, series);
      plots += fmt::format("{}'{}' u 1:2 w lp t '{} vs {}'", plots.empty() ? "" : ", ", file,
                           GnuplotLabel(key.first), GnuplotLabel(key.second));
    }
    chart.script = StrCat(
        "set grid\nset key outside right\n"
        "set title 'win rate per policy (average / current, sampled / greedy)'\n"
        "set ylabel 'win rate'\nset yrange [0:1]\nset xlabel 'iteration'\nplot ",
        plots);
    charts.emplace_back("policies.png", std::move(chart));
  }
  if (!expeditions.empty()) {
    GnuplotChart chart;
    std::string plots;
    for (const auto& [name, series] : expeditions) {
      const std::string file = fmt::format("exp{}.dat", chart.data.size());
      chart.data.emplace_back(file, series);
      const std::string label = GnuplotLabel(name);
      plots += fmt::format(
          "{}'{}' u 1:2 w lp t 'colors opened per game vs {}', "
          "'{}' u 1:3 w lp dt 2 t 'share of opened colors > 0 vs {}', "
          "'{}' u 1:5 w lp dt 3 t 'wagered colors below cost per game vs {}'",
          plots.empty() ? "" : ", ", file, label, file, label, file, label);
    }
    chart.script = StrCat(
        "set grid\nset key outside right\n"
        "set title 'expeditions of the network (default policy)'\nset xlabel 'iteration'\nplot ",
        plots);
    charts.emplace_back("expeditions.png", std::move(chart));
  }
  if (!exploit.empty()) {
    charts.emplace_back(
        "exploit.png",
        chart_of(
            StrCat("set grid\nset key outside right\n"
                   "set title 'exploit gain against the target (a lower bound on its "
                   "exploitability)'\nset xlabel 'iteration'\nset ylabel 'payoff per game'\n",
                   has_best_response ? "set yrange [0:*]\n" : "",
                   "plot 'exploit.dat' u 1:2:3:4 w yerrorlines t 'exploiter, both seats'",
                   has_best_response ? ", 'exploit.dat' u 1:5 w l dt 2 lw 2 t 'exact best response'"
                                     : ""),
            "exploit.dat", exploit));
  }
  int failures = 0;
  for (const auto& [name, chart] : charts) {
    const std::string png = out_dir + "/" + name;
    if (absl::Status s = RenderPng(chart, png); !s.ok()) {
      PrintError("plot", std::string(s.message()));
      ++failures;
      continue;
    }
    fmt::print("{}\n", png);
  }
  return failures == 0 ? kExitOk : kExitFailure;
}

}  // namespace

CommandFn AddPlotCommand(CLI::App& app) {
  auto opts = std::make_shared<PlotOptions>();
  CLI::App* sub = app.add_subcommand(
      "plot",
      "PNG charts of a training run's metrics.jsonl: win rates (or exploitability) against "
      "iterations and against wall time, win rates per evaluation policy, expedition statistics "
      "and losses against iterations, and throughput. Prints the files written.");
  sub->add_option("run_dir", opts->run_dir, "the run directory")->required();
  sub->add_option("--out", opts->out_dir, "where to write the PNGs (default: RUN_DIR/plots)");
  return [opts] { return RunPlot(*opts); };
}

}  // namespace lcfr::apps
