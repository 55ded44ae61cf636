#include "training/iteration_metrics.h"

#include <fstream>
#include <limits>
#include <type_traits>

#include "base/json_bounds.h"
#include "base/strings.h"
#include "nlohmann/json.hpp"

namespace lcfr::training {
namespace {

using Json = nlohmann::ordered_json;
using traversal::SampleKind;

// As iostreams print a double by default (6 significant digits).
std::string G(double x) { return fmt::format("{:.6g}", x); }

}  // namespace

std::string IterationMetrics::ToJsonLine() const {
  Json line;
  line["iteration"] = iteration;
  if (value_loss) line["value_loss"] = *value_loss;
  if (strategy_loss) line["strategy_loss"] = *strategy_loss;
  if (exploitability) line["exploitability"] = *exploitability;
  if (nash_conv) line["nash_conv"] = *nash_conv;
  if (memory_mean_exploitability) line["memory_mean_exploitability"] = *memory_mean_exploitability;
  if (eval) {
    Json results = Json::object();
    for (const BotResult& r : *eval) {
      Json entry = {{"win_rate", r.win_rate},
                    {"ci_low", r.ci_low},
                    {"ci_high", r.ci_high},
                    {"mean_score_diff", r.mean_score_diff},
                    {"games", r.games},
                    {"capped", r.capped},
                    {"colors_opened", r.colors_opened},
                    {"score_per_color", r.score_per_color},
                    {"positive_share", r.positive_share},
                    {"wagers_below_cost", r.wagers_below_cost}};
      if (r.policy.rfind("current", 0) == 0) entry["fallback_rate"] = r.fallback_rate;
      // eval.<bot> for the default policy, eval.<policy>.<bot> for each policy played.
      if (r.policy.empty()) {
        results[r.opponent] = entry;
      } else {
        results[r.policy][r.opponent] = entry;
      }
    }
    line["eval"] = results;
  }
  if (exploit) {
    const ExploitResult& e = *exploit;
    Json entry = {{"gain", e.gain}, {"seat0", e.seat[0]}, {"seat1", e.seat[1]}};
    if (e.best_response) entry["best_response"] = *e.best_response;
    if (e.games > 0) {
      entry["gain_ci"] = {e.gain_low, e.gain_high};
      entry["seat0_ci"] = {e.seat_low[0], e.seat_high[0]};
      entry["seat1_ci"] = {e.seat_low[1], e.seat_high[1]};
      entry["win_rate"] = e.win_rate;
      entry["win_ci"] = {e.win_low, e.win_high};
      entry["games"] = e.games;
    }
    line["exploit"] = entry;
  }
  line["time"] = {{"traversal", time.traversal},
                  {"advantage_training", time.advantage_training},
                  {"value_training", time.value_training},
                  {"strategy_training", time.strategy_training},
                  {"evaluation", time.evaluation}};
  if (time.checkpoint) line["time"]["checkpoint"] = *time.checkpoint;
  line["time"]["process_cpu"] = time.process_cpu;
  line["traversals_per_s"] = traversals_per_s;
  line["policy_calls_per_s"] = policy_calls_per_s;
  line["rows_per_forward"] = rows_per_forward;
  line["capped_leaves"] = capped_leaves;
  line["advantage_loss"] = {advantage_loss[0], advantage_loss[1]};
  line["samples"] = {{"advantage", samples[SampleKind::kAdvantage]},
                     {"strategy", samples[SampleKind::kStrategy]},
                     {"value", samples[SampleKind::kValue]},
                     {"digest", {digest[0], digest[1]}}};
  line["memory"] = {{"advantage", {memory.advantage[0], memory.advantage[1]}},
                    {"strategy", memory.strategy},
                    {"advantage_fill", memory.advantage_fill},
                    {"strategy_fill", memory.strategy_fill}};
  if (memory.value) line["memory"]["value"] = *memory.value;
  line["distributed"] = {{"world_size", world_size}, {"weights_checksum", weights_checksum}};
  return line.dump();
}

absl::StatusOr<IterationMetrics> IterationMetrics::FromJsonLine(std::string_view text) {
  if (absl::Status s = CheckJsonBounds(text); !s.ok()) {
    return absl::InvalidArgumentError(lcfr::StrCat("not valid JSON: ", s.message()));
  }
  Json j;
  try {
    j = Json::parse(text);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(lcfr::StrCat("not valid JSON: ", e.what()));
  }
  if (!j.is_object()) return absl::InvalidArgumentError("expected a JSON object");
  std::string missing;
  // Reads j[a][b]... as T. A wrong type is an error (the key path is recorded); so is a missing
  // key that is required. Other keys may be missing: lines written by earlier versions lack
  // some (they keep their defaults).
  auto read = [&missing](const Json& node, std::initializer_list<const char*> path, auto& out,
                         bool required) -> bool {
    const Json* at = &node;
    std::string name;
    for (const char* key : path) {
      if (!at->is_object()) {  // an enclosing key holds something else than an object
        if (missing.empty()) missing = name + " (of the wrong type)";
        return false;
      }
      if (!name.empty()) name.push_back('.');
      name.append(key);
      if (!at->contains(key)) {
        if (required && missing.empty()) missing = name;
        return false;
      }
      at = &(*at)[key];
    }
    using T = std::decay_t<decltype(out)>;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // An integer in T's range: nlohmann would convert 4e53 or 2^64-1 with undefined behaviour.
      const long long value = at->is_number_integer() ? SaturatedInteger(*at) : 0;
      if (!at->is_number_integer() || value < std::numeric_limits<T>::min() ||
          value > std::numeric_limits<T>::max()) {
        if (missing.empty()) missing = name + " (of the wrong type or out of range)";
        return false;
      }
      out = static_cast<T>(value);
      return true;
    }
    try {
      out = at->get<T>();
      return true;
    } catch (const std::exception&) {
      if (missing.empty()) missing = name + " (of the wrong type)";
      return false;
    }
  };
  auto get = [&read](const Json& node, std::initializer_list<const char*> path, auto& out) {
    return read(node, path, out, false);
  };
  auto need = [&read](const Json& node, std::initializer_list<const char*> path, auto& out) {
    return read(node, path, out, true);
  };
  IterationMetrics m;
  need(j, {"iteration"}, m.iteration);
  // An optional value: set when its key is there (a wrong type is still an error).
  auto maybe = [&get](const Json& node, std::initializer_list<const char*> path, auto& out) {
    typename std::decay_t<decltype(out)>::value_type value{};
    if (get(node, path, value)) out = value;
  };
  maybe(j, {"value_loss"}, m.value_loss);
  maybe(j, {"strategy_loss"}, m.strategy_loss);
  maybe(j, {"exploitability"}, m.exploitability);
  maybe(j, {"nash_conv"}, m.nash_conv);
  maybe(j, {"memory_mean_exploitability"}, m.memory_mean_exploitability);
  if (j.contains("eval")) {
    if (!j["eval"].is_object()) return absl::InvalidArgumentError("eval: expected an object");
    std::vector<BotResult> results;
    auto parse = [&](const std::string& policy, const std::string& name, const Json& r) {
      BotResult b;
      b.opponent = name;
      b.policy = policy;
      need(r, {"win_rate"}, b.win_rate);
      need(r, {"ci_low"}, b.ci_low);
      need(r, {"ci_high"}, b.ci_high);
      get(r, {"mean_score_diff"}, b.mean_score_diff);
      get(r, {"games"}, b.games);
      get(r, {"capped"}, b.capped);
      get(r, {"colors_opened"}, b.colors_opened);
      get(r, {"score_per_color"}, b.score_per_color);
      get(r, {"positive_share"}, b.positive_share);
      get(r, {"wagers_below_cost"}, b.wagers_below_cost);
      get(r, {"fallback_rate"}, b.fallback_rate);
      results.push_back(b);
    };
    for (const auto& [name, r] : j["eval"].items()) {
      // A bot's entry has a win rate; a policy's holds one entry per bot.
      if (r.is_object() && !r.contains("win_rate") && !r.empty() && r.begin()->is_object()) {
        for (const auto& [bot, entry] : r.items()) parse(name, bot, entry);
      } else {
        parse("", name, r);
      }
    }
    m.eval = results;
  }
  if (j.contains("exploit")) {
    const Json& e = j["exploit"];
    if (!e.is_object()) return absl::InvalidArgumentError("exploit: expected an object");
    ExploitResult r;
    std::array<double, 2> pair{};
    need(e, {"gain"}, r.gain);
    need(e, {"seat0"}, r.seat[0]);
    need(e, {"seat1"}, r.seat[1]);
    maybe(e, {"best_response"}, r.best_response);
    if (get(e, {"games"}, r.games) && r.games > 0) {
      if (need(e, {"gain_ci"}, pair)) r.gain_low = pair[0], r.gain_high = pair[1];
      if (need(e, {"seat0_ci"}, pair)) r.seat_low[0] = pair[0], r.seat_high[0] = pair[1];
      if (need(e, {"seat1_ci"}, pair)) r.seat_low[1] = pair[0], r.seat_high[1] = pair[1];
      need(e, {"win_rate"}, r.win_rate);
      if (need(e, {"win_ci"}, pair)) r.win_low = pair[0], r.win_high = pair[1];
    }
    m.exploit = r;
  }
  get(j, {"time", "traversal"}, m.time.traversal);
  get(j, {"time", "advantage_training"}, m.time.advantage_training);
  get(j, {"time", "value_training"}, m.time.value_training);
  get(j, {"time", "strategy_training"}, m.time.strategy_training);
  get(j, {"time", "evaluation"}, m.time.evaluation);
  maybe(j, {"time", "checkpoint"}, m.time.checkpoint);
  std::optional<double> process_cpu;  // lines of older runs have none
  maybe(j, {"time", "process_cpu"}, process_cpu);
  m.time.process_cpu = process_cpu.value_or(0.0);
  get(j, {"traversals_per_s"}, m.traversals_per_s);
  get(j, {"policy_calls_per_s"}, m.policy_calls_per_s);
  get(j, {"rows_per_forward"}, m.rows_per_forward);
  get(j, {"capped_leaves"}, m.capped_leaves);
  need(j, {"advantage_loss"}, m.advantage_loss);  // the pairs: one entry per player
  get(j, {"samples", "advantage"}, m.samples[SampleKind::kAdvantage]);
  get(j, {"samples", "strategy"}, m.samples[SampleKind::kStrategy]);
  get(j, {"samples", "value"}, m.samples[SampleKind::kValue]);
  get(j, {"samples", "digest"}, m.digest);
  get(j, {"memory", "advantage"}, m.memory.advantage);
  get(j, {"memory", "strategy"}, m.memory.strategy);
  get(j, {"memory", "advantage_fill"}, m.memory.advantage_fill);
  get(j, {"memory", "strategy_fill"}, m.memory.strategy_fill);
  maybe(j, {"memory", "value"}, m.memory.value);
  get(j, {"distributed", "world_size"}, m.world_size);
  get(j, {"distributed", "weights_checksum"}, m.weights_checksum);
  if (!missing.empty()) return absl::InvalidArgumentError(lcfr::StrCat("key ", missing));
  return m;
}

absl::StatusOr<std::vector<IterationMetrics>> ReadMetricsFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::InternalError(lcfr::StrCat("cannot read ", path));
  std::vector<IterationMetrics> lines;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    absl::StatusOr<IterationMetrics> m = IterationMetrics::FromJsonLine(line);
    if (!m.ok()) {
      return absl::InvalidArgumentError(
          lcfr::StrCat(path, ": line ", number, ": ", m.status().message()));
    }
    lines.push_back(*std::move(m));
  }
  return lines;
}

std::string FormatDuration(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  if (s >= 3600) return lcfr::StrCat(s / 3600, "h", (s % 3600) / 60, "m");
  if (s >= 60) return lcfr::StrCat(s / 60, "m", s % 60, "s");
  return lcfr::StrCat(s, "s");
}

void RunOutcome::Add(const IterationMetrics& m) {
  Point point;
  point.iteration = m.iteration;
  bool lower_is_better = false;
  if (m.exploit) {
    measure_ = "exploit gain";
    point.score = m.exploit->gain;
  } else if (m.exploitability) {
    measure_ = "exploitability";
    point.score = *m.exploitability;
    lower_is_better = true;
  } else if (m.eval) {
    double sum = 0;
    int bots = 0;
    for (const BotResult& r : *m.eval) {
      if (!r.policy.empty()) continue;
      sum += r.win_rate;
      ++bots;
    }
    if (bots == 0) return;
    measure_ = "mean win rate";
    point.score = sum / bots;
  } else {
    return;
  }
  const Json line = Json::parse(m.ToJsonLine());
  Json eval = Json::object();
  for (const char* key :
       {"exploitability", "nash_conv", "memory_mean_exploitability", "eval", "exploit"}) {
    if (line.contains(key)) eval[key] = line[key];
  }
  point.eval_json = eval.dump();
  const bool better =
      !best_ || (lower_is_better ? point.score < best_->score : point.score > best_->score);
  if (better) best_ = point;
  final_ = std::move(point);
}

std::string RunOutcome::Line() const {
  if (!final_) return "no evaluation";
  return lcfr::StrCat("final ", measure_, " ", G(final_->score), " at iteration ",
                      final_->iteration, ", best ", G(best_->score), " at iteration ",
                      best_->iteration);
}

std::string ProgressLine(const IterationMetrics& m, int last, double per_iteration) {
  std::string text =
      lcfr::StrCat("iter ", m.iteration, "/", last, " | ", FormatDuration(per_iteration),
                   "/it | ETA ", FormatDuration(per_iteration * (last - m.iteration)), " | ",
                   static_cast<int64_t>(m.policy_calls_per_s), " calls/s, ",
                   static_cast<int>(m.rows_per_forward), " rows | adv loss ",
                   G(m.advantage_loss[0]), " ", G(m.advantage_loss[1]));
  if (m.value_loss) lcfr::StrAppend(&text, " | value loss ", G(*m.value_loss));
  if (m.strategy_loss) lcfr::StrAppend(&text, " | strat loss ", G(*m.strategy_loss));
  if (m.exploitability) lcfr::StrAppend(&text, " | exploitability ", G(*m.exploitability));
  if (m.memory_mean_exploitability) {
    lcfr::StrAppend(&text, " (memory mean ", G(*m.memory_mean_exploitability), ")");
  }
  if (m.eval) {
    for (const BotResult& r : *m.eval) {
      if (r.policy.empty()) lcfr::StrAppend(&text, " | vs ", r.opponent, " ", G(r.win_rate));
    }
  }
  if (m.exploit) {
    const ExploitResult& e = *m.exploit;
    lcfr::StrAppend(&text, " | exploit gain ", G(e.gain));
    if (e.games > 0) {
      lcfr::StrAppend(&text, " [", G(e.gain_low), ", ", G(e.gain_high), "], win rate ",
                      G(e.win_rate));
    }
    if (e.best_response) {
      lcfr::StrAppend(&text, " of best response ", G(*e.best_response));
    }
  }
  return text;
}

}  // namespace lcfr::training
