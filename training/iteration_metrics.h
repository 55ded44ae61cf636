// One iteration's metrics: what the trainer measures, what metrics.jsonl holds (one JSON line
// per iteration, keys in docs/training.md), what the progress line shows and what `lcfr plot`
// reads, in one struct so that none of them keeps its own list of keys. Torch-free.
#ifndef LCFR_TRAINING_ITERATION_METRICS_H_
#define LCFR_TRAINING_ITERATION_METRICS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "traversal/samples.h"

namespace lcfr::training {

// A network policy's games against one bot (Lost Cities).
struct BotResult {
  std::string opponent;
  std::string policy;  // play/play_policy.h PlayPolicy::Name(); "" = the default keys
  double win_rate = 0;
  double ci_low = 0;  // 95% Wilson interval
  double ci_high = 0;
  double mean_score_diff = 0;
  int64_t games = 0;
  int64_t capped = 0;  // games ended by the decision cap
  // Expedition statistics of the network's side (play/match.h).
  double colors_opened = 0;      // colors opened per game
  double score_per_color = 0;    // mean score of an opened color
  double positive_share = 0;     // share of opened colors that ended > 0
  double wagers_below_cost = 0;  // colors per game with a wager and a sum below the cost
  double fallback_rate = 0;      // regret-matching argmax fallbacks per decision (current)
};

// An exploit run's evaluation (training/exploit.h): the exploiter (greedy over the advantage
// network of the seat it sits in) against the frozen target, in the game's payoff
// units per game (chips; Lost Cities: points of score difference). `gain`, the mean over the
// two seats, is a lower bound on the target's exploitability (NashConv / 2).
struct ExploitResult {
  std::array<double, 2> seat{};  // the exploiter's mean payoff in seat 0 and in seat 1
  double gain = 0;               // their mean
  // Games (Lost Cities): how many (half in each seat, on paired deals), the 95% interval of the
  // gain (over the deal pairs) and of each seat's mean, and the exploiter's win rate (Wilson).
  int64_t games = 0;  // 0: computed exactly (the toy games)
  double gain_low = 0, gain_high = 0;
  std::array<double, 2> seat_low{}, seat_high{};
  double win_rate = 0, win_low = 0, win_high = 0;
  // The toy games: the exact best response's value against the target, the mean over the
  // seats (the target's exploitability): what `gain` is a lower bound of.
  std::optional<double> best_response;
};

struct IterationMetrics {
  int iteration = 0;
  std::optional<double> value_loss;     // the value scheme
  std::optional<double> strategy_loss;  // iterations that trained the strategy network
  // Evaluation, when it ran: exact for the toy games, games against bots for Lost Cities.
  std::optional<double> exploitability;
  std::optional<double> nash_conv;
  // The toy games: the exploitability of the strategy memory's weighted mean at each infoset,
  // the policy a perfect fit of the strategy network would play (training/exact_evaluation.h;
  // with several ranks, of rank 0's shard of the memory).
  std::optional<double> memory_mean_exploitability;
  std::optional<std::vector<BotResult>> eval;
  std::optional<ExploitResult> exploit;  // exploit runs
  // Seconds per phase (timing: differs between otherwise identical runs).
  struct Times {
    double traversal = 0;
    double advantage_training = 0;
    double value_training = 0;
    double strategy_training = 0;
    double evaluation = 0;
    std::optional<double> checkpoint;  // iterations that wrote one
    // The process's CPU seconds (user + system, every thread) since it started, at the end of
    // the iteration's evaluation (rank 0's process; a resumed run starts again from 0).
    double process_cpu = 0;
  } time;
  double traversals_per_s = 0;
  double policy_calls_per_s = 0;
  double rows_per_forward = 0;
  int64_t capped_leaves = 0;  // traversal leaves ended by the decision cap
  std::array<double, 2> advantage_loss{};
  traversal::PerKind<int64_t> samples;  // recorded this iteration, over all ranks
  std::array<std::string, 2> digest;    // per traverser, traversal/sample_digest.h
  struct Memory {
    std::array<int64_t, 2> advantage{};
    int64_t strategy = 0;
    double advantage_fill = 0;  // player 0's advantage memory, of its capacity
    double strategy_fill = 0;
    std::optional<int64_t> value;  // the value scheme
  } memory;
  int world_size = 1;
  std::string weights_checksum;

  // The metrics.jsonl line (no newline), keys in the order of docs/training.md.
  std::string ToJsonLine() const;
  // Parses a metrics.jsonl line; errors name the key that is of the wrong type, or missing
  // among those every version wrote (iteration, advantage_loss, an evaluation's win rate and
  // interval). Other missing keys keep their defaults.
  static absl::StatusOr<IterationMetrics> FromJsonLine(std::string_view line);
};

// Every line of a metrics.jsonl (empty lines skipped); errors name the file and the line.
absl::StatusOr<std::vector<IterationMetrics>> ReadMetricsFile(const std::string& path);

// What a run reached: its last evaluation and its best, each with its iteration. The toy games
// rank evaluations by exploitability (lower is better); Lost Cities by the mean win rate of the
// default policy over the bots it played (higher is better); exploit runs by the exploit gain
// (higher is better).
class RunOutcome {
 public:
  struct Point {
    int iteration = 0;
    double score = 0;       // exploitability, or the mean win rate
    std::string eval_json;  // the iteration's evaluation as metrics.jsonl holds it
  };
  // Adds an iteration's metrics, in order; iterations without an evaluation are skipped.
  void Add(const IterationMetrics& metrics);
  const std::optional<Point>& final_point() const { return final_; }
  const std::optional<Point>& best_point() const { return best_; }
  // "exploitability", "mean win rate" or "exploit gain"; "" before any evaluation.
  const std::string& measure() const { return measure_; }
  // One line for the end of a run, e.g. "final exploitability 0.149 at iteration 100, best
  // 0.121 at iteration 80"; "no evaluation" when none ran.
  std::string Line() const;

 private:
  std::optional<Point> final_;
  std::optional<Point> best_;
  std::string measure_;
};

// The progress line of iteration `metrics.iteration` of `last`, `per_iteration` seconds each.
std::string ProgressLine(const IterationMetrics& metrics, int last, double per_iteration);

// "1h02m", "3m05s", "42s".
std::string FormatDuration(double seconds);

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_ITERATION_METRICS_H_
