// lcfr plot RUN_DIR: PNG charts of a run's metrics.jsonl (gnuplot): evaluation results and
// losses against iterations, and throughput.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "engine/files.h"
#include "engine/strings.h"
#include "fmt/core.h"
#include "training/iteration_metrics.h"

namespace lcfr::apps {
namespace {

struct PlotOptions {
  std::string run_dir;
  std::string out_dir;  // default: RUN_DIR/plots
};

bool WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return static_cast<bool>(out);
}

// Runs a gnuplot script that writes `png`; the PNG is written to a temporary name and renamed.
bool Gnuplot(const std::string& script, const std::string& png) {
  const std::string temporary = png + ".tmp.png";
  const std::string script_path = png + ".gp";
  if (!WriteText(script_path, fmt::format("set terminal pngcairo size 900,540 noenhanced\n"
                                          "set output '{}'\nset grid\nset key outside right\n{}",
                                          temporary, script))) {
    return false;
  }
  const int rc = std::system(("gnuplot '" + script_path + "' 2>&1").c_str());
  std::remove(script_path.c_str());
  if (rc != 0 || std::rename(temporary.c_str(), png.c_str()) != 0) {
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}

int RunPlot(const PlotOptions& opts) {
  std::ifstream in(opts.run_dir + "/metrics.jsonl");
  if (!in) {
    PrintError("plot",
               StrCat(opts.run_dir, "/metrics.jsonl: cannot open (is it a run directory?)"));
    return kExitBadInput;
  }
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) {
    PrintError("plot", "needs gnuplot (scripts/setup.sh installs gnuplot-nox)");
    return kExitFailure;
  }
  const std::string out_dir = opts.out_dir.empty() ? opts.run_dir + "/plots" : opts.out_dir;
  if (absl::Status s = MakeDirectories(out_dir); !s.ok()) {
    PrintError("plot", std::string(s.message()));
    return kExitFailure;
  }
  // Columns per iteration: losses, throughput; evaluation series by name.
  std::string losses, throughput;
  bool has_value_loss = false;               // the value scheme
  std::map<std::string, std::string> evals;  // name -> "iteration value low high" lines
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    const absl::StatusOr<training::IterationMetrics> m =
        training::IterationMetrics::FromJsonLine(line);
    if (!m.ok()) {
      PrintError("plot",
                 StrCat(opts.run_dir, "/metrics.jsonl:", line_no, ": ", m.status().message()));
      return kExitBadInput;
    }
    const int t = m->iteration;
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
    }
    if (m->eval) {
      for (const training::BotResult& r : *m->eval) {
        evals[r.opponent] += fmt::format("{} {} {} {}\n", t, r.win_rate, r.ci_low, r.ci_high);
      }
    }
  }
  std::vector<std::string> written;
  const std::string data = out_dir + "/.losses.dat";
  WriteText(data, losses);
  if (Gnuplot(
          fmt::format("set title 'losses'\nset xlabel 'iteration'\nset logscale y\n"
                      "plot '{0}' u 1:2 w l lw 2 t 'advantage loss, player 0', "
                      "'{0}' u 1:3 w l lw 2 t 'advantage loss, player 1', "
                      "'{0}' u 1:4 w lp t 'strategy loss'{1}\n",
                      data, has_value_loss ? ", '" + data + "' u 1:5 w l lw 2 t 'value loss'" : ""),
          out_dir + "/losses.png")) {
    written.push_back(out_dir + "/losses.png");
  }
  const std::string tdata = out_dir + "/.throughput.dat";
  WriteText(tdata, throughput);
  if (Gnuplot(fmt::format("set title 'traversal throughput'\nset xlabel 'iteration'\n"
                          "set ylabel 'policy calls/s'\nset y2label 'rows per forward'\n"
                          "set ytics nomirror\nset y2tics\n"
                          "plot '{0}' u 1:2 w l lw 2 t 'policy calls/s', "
                          "'{0}' u 1:3 axes x1y2 w l dt 2 t 'rows per forward'\n",
                          tdata),
              out_dir + "/throughput.png")) {
    written.push_back(out_dir + "/throughput.png");
  }
  if (!evals.empty()) {
    std::string plots;
    const bool toy = evals.count("exploitability") > 0;
    for (const auto& [name, series] : evals) {
      const std::string file = out_dir + "/.eval_" + name + ".dat";
      WriteText(file, series);
      plots += fmt::format("{}'{}' u 1:2:3:4 w yerrorlines t '{}'", plots.empty() ? "" : ", ", file,
                           toy ? "exploitability (exact)" : "win rate vs " + name);
    }
    const std::string head = toy ? "set title 'exploitability of the strategy network'\n"
                                   "set ylabel 'exploitability'\nset logscale y\n"
                                 : "set title 'win rate of the strategy network (95% Wilson)'\n"
                                   "set ylabel 'win rate'\nset yrange [0:1]\n";
    if (Gnuplot(head + "set xlabel 'iteration'\nplot " + plots + "\n",
                out_dir + (toy ? "/exploitability.png" : "/win_rates.png"))) {
      written.push_back(out_dir + (toy ? "/exploitability.png" : "/win_rates.png"));
    }
  }
  (void)RemoveFiles(out_dir, ".", ".dat");  // the data files written for gnuplot
  if (written.empty()) {
    PrintError("plot", "gnuplot wrote nothing");
    return kExitFailure;
  }
  for (const std::string& path : written) fmt::print("{}\n", path);
  return kExitOk;
}

}  // namespace

CommandFn AddPlotCommand(CLI::App& app) {
  auto opts = std::make_shared<PlotOptions>();
  CLI::App* sub = app.add_subcommand(
      "plot",
      "PNG charts of a training run's metrics.jsonl: win rates (or exploitability) and "
      "losses against iterations, and throughput. Prints the files written.");
  sub->add_option("run_dir", opts->run_dir, "the run directory")->required();
  sub->add_option("--out", opts->out_dir, "where to write the PNGs (default: RUN_DIR/plots)");
  return [opts] { return RunPlot(*opts); };
}

}  // namespace lcfr::apps
