#include "training/search.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>

#include "engine/check.h"
#include "engine/rng.h"
#include "engine/stream_cat.h"
#include "engine/worlds.h"

namespace lcfr::training {
namespace {

using Clock = std::chrono::steady_clock;

// Stream tags of a decision's seed.
constexpr uint64_t kBlueprintStream = 0x626c75657072696eULL;  // "blueprin"
constexpr uint64_t kWorldStream = 0x776f726c64ULL;            // "world"
constexpr uint64_t kRolloutStream = 0x726f6c6c6f7574ULL;      // "rollout"
constexpr uint64_t kBeliefStream = 0x62656c696566ULL;         // "belief"
constexpr uint64_t kRacingShuffle = 0x72616365ULL;            // "race"
constexpr uint64_t kOpponentStream = 0x6f70706f6e656e74ULL;   // "opponent"
constexpr uint64_t kTurnStream = 0x7475726eULL;               // "turn"

// Racing's phases: each plays this share of uniform's rounds (1/8), so a decision whose
// candidates but b all trail clearly after the first phase costs 1/8 of the budget.
constexpr int kRacingPhases = 8;

// The rounds of a decision's plan drawn at a time (ActOnState's extend_plan): more than any
// budget measured plays (2,000 rollouts over 5 candidates: 400 rounds).
constexpr int kPlanBlock = 4096;

// The share of uniform play mixed into the opponent's modelled move probabilities: a move the
// model would never make costs a world at most a factor of about 20 x its legal actions.
constexpr double kBeliefUniform = 0.05;

// --objective auto: a decision plays for wins when the blueprint's choice wins at least this share
// of its first phase's rollouts, or at most 1 - it (the game is all but decided, and the score
// objective would spend the search on margins); for the score difference in between.
constexpr double kAutoWinShare = 0.75;

// A rollout's result for the win objective: 1 for a win, 0.5 a tie, 0 a loss (NaN stays NaN).
double WinOf(double payoff) {
  if (std::isnan(payoff)) return payoff;
  return payoff > 0 ? 1.0 : payoff == 0 ? 0.5 : 0.0;
}

// The standard error of the mean of m samples given their sum and sum of squares; infinite
// below two samples (unknown).
double StandardError(double sum, double sum2, int m) {
  if (m < 2) return std::numeric_limits<double>::infinity();
  const double var = std::max(0.0, (sum2 - sum * sum / m) / (m - 1));
  return std::sqrt(var / m);
}

// Systematic resampling: for each of `rounds` rounds, the index whose weight holds the point
// (r + offset) / rounds x total of the weights' running sums `cumulative` (total: their last).
std::vector<int> SystematicPicks(const std::vector<double>& cumulative, double total, int rounds,
                                 double offset) {
  std::vector<int> picks(rounds);
  const ptrdiff_t last = static_cast<ptrdiff_t>(cumulative.size()) - 1;
  for (int r = 0; r < rounds; ++r) {
    const double u = (r + offset) / rounds * total;
    const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u);
    picks[r] = static_cast<int>(std::min<ptrdiff_t>(it - cumulative.begin(), last));
  }
  return picks;
}

// The belief's weights of n worlds, exp(power x (log_likelihood[i * stride + at] - their top)),
// as running sums into `cumulative` (summed in index order: the same for any widths and
// workers; the total is its last); returns their effective number, (sum w)^2 / sum w^2.
double BeliefWeights(const std::vector<double>& log_likelihood, int n, int stride, int at,
                     double power, std::vector<double>& cumulative) {
  double top = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) top = std::max(top, log_likelihood[i * stride + at]);
  cumulative.assign(n, 0.0);
  double total = 0, squares = 0;
  for (int i = 0; i < n; ++i) {
    const double w = std::exp(power * (log_likelihood[i * stride + at] - top));
    total += w;
    squares += w * w;
    cumulative[i] = total;
  }
  return total * total / squares;
}

// A Fisher-Yates shuffle of `v` from `rng`.
void Shuffle(std::vector<int>& v, engine::Rng& rng) {
  for (int r = static_cast<int>(v.size()) - 1; r > 0; --r) {
    std::swap(v[r], v[rng.Uniform(static_cast<uint32_t>(r + 1))]);
  }
}

// The evaluator of a player that never asks a network (a scripted blueprint and rollouts).
class NoModelEvaluator : public traversal::Evaluator {
 public:
  void Evaluate(std::span<const traversal::PolicyRequest>) override {
    throw std::logic_error("search: a network was asked for, but no model was given");
  }
};

// The rollouts' evaluator when the opponent's side has a model of its own
// (--opponent-rollout-model): each batch's requests go by PolicyRequest::model to the searching
// side's evaluator (0: the rollout model's, or the blueprint model's, not owned then) or to the
// opponent's (1), each a batch of its own in the batch's order.
class SidesEvaluator : public traversal::Evaluator {
 public:
  SidesEvaluator(traversal::Evaluator* self, std::unique_ptr<traversal::Evaluator> owned_self,
                 std::unique_ptr<traversal::Evaluator> opponent)
      : self_(self), owned_self_(std::move(owned_self)), opponent_(std::move(opponent)) {}
  void Evaluate(std::span<const traversal::PolicyRequest> requests) override {
    for (auto& part : parts_) part.clear();
    for (const traversal::PolicyRequest& r : requests) {
      if (r.model != 0 && r.model != 1) {
        throw std::logic_error("search: a rollout asked for network set " +
                               std::to_string(r.model) + " (0 or 1)");
      }
      parts_[r.model].push_back(r);
    }
    if (!parts_[0].empty()) self_->Evaluate(parts_[0]);
    if (!parts_[1].empty()) opponent_->Evaluate(parts_[1]);
  }

 private:
  traversal::Evaluator* self_;
  std::unique_ptr<traversal::Evaluator> owned_self_;
  std::unique_ptr<traversal::Evaluator> opponent_;
  std::vector<traversal::PolicyRequest> parts_[2];
};

bool KnownBot(const std::string& name) { return engine::MakeBot(name).ok(); }

// "model" or a play policy's name: the model plays.
bool NamesModel(const std::string& name) {
  return name == "model" || play::PlayPolicy::Parse(name).ok();
}

}  // namespace

absl::Status SearchConfig::Validate() const {
  auto bad = [](auto&&... parts) { return absl::InvalidArgumentError(lcfr::StreamCat(parts...)); };
  if (rollouts < 1 || rollouts > 10000000) {
    return bad("--rollouts must be in [1, 10000000] (got ", rollouts, ")");
  }
  if (move_time_ms < 0) return bad("--move-time-ms must be >= 0 (got ", move_time_ms, ")");
  if (worlds < 0) return bad("--worlds must be >= 0 (got ", worlds, "; 0 = a new world a round)");
  if (candidates < 0) return bad("--candidates must be >= 0 (got ", candidates, "; 0 = all)");
  if (!(threshold >= 0) || !std::isfinite(threshold)) {
    return bad("--threshold must be a finite number >= 0 (got ", threshold, ")");
  }
  if (!(min_gain >= 0 && min_gain <= 1)) {
    return bad("--min-gain must be in [0, 1] (got ", min_gain,
               "; a share of rollouts won, or points / 100)");
  }
  auto unknown = [&](const char* flag, const std::string& name) {
    std::string known;
    for (const std::string& bot : engine::BotNames()) known += ", " + bot;
    return bad(flag, ": unknown policy '", name,
               "' (known: model, current, current-greedy, average, average-greedy", known, ")");
  };
  if (!rollout_policy.empty() && !NamesModel(rollout_policy) && !KnownBot(rollout_policy)) {
    return unknown("--rollout-policy", rollout_policy);
  }
  size_t opponents = 0;
  if (!opponent_rollout_policy.empty()) {
    const std::vector<std::string> names = opponent_policies();
    opponents = names.size();
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i].empty()) {
        return bad("--opponent-rollout-policy: an empty name in '", opponent_rollout_policy,
                   "' (several policies are separated by single commas)");
      }
      if (!NamesModel(names[i]) && !KnownBot(names[i])) {
        return unknown("--opponent-rollout-policy", names[i]);
      }
      if (std::find(names.begin(), names.begin() + i, names[i]) != names.begin() + i) {
        return bad("--opponent-rollout-policy: '", names[i], "' is named twice in '",
                   opponent_rollout_policy, "'");
      }
    }
  }
  if (opponents > 16) {
    return bad("--opponent-rollout-policy: at most 16 policies to infer among (got ", opponents,
               ")");
  }
  if (opponent_worlds < 1 || opponent_worlds > 1000000) {
    return bad("--opponent-worlds must be in [1, 1000000] (got ", opponent_worlds, ")");
  }
  if (objective != "score" && objective != "win" && objective != "auto") {
    return bad("--objective must be score, win or auto (got '", objective, "')");
  }
  if (allocation != "uniform" && allocation != "halving" && allocation != "racing") {
    return bad("--allocation must be uniform, halving or racing (got '", allocation, "')");
  }
  if (!(drop_threshold > 0) || !std::isfinite(drop_threshold)) {
    return bad("--drop-threshold must be a finite number > 0 (got ", drop_threshold, ")");
  }
  if (rollout_depth < 0 || rollout_depth > 100000) {
    return bad("--rollout-depth must be in [0, 100000] (got ", rollout_depth,
               "; 0 = every rollout to the end of the game)");
  }
  if (rollout_depth > 0 && objective != "score") {
    return bad("--rollout-depth needs --objective score (the value network estimates the score)");
  }
  if (belief < 0 || belief > 1000000) {
    return bad("--belief must be in [0, 1000000] (got ", belief, "; 0 = uniform worlds)");
  }
  if (!(belief_power > 0 && belief_power <= 1)) {
    return bad("--belief-power must be in (0, 1] (got ", belief_power, ")");
  }
  if (belief_policy != "blueprint" && belief_policy != "opponent") {
    return bad("--belief-policy must be blueprint or opponent (got '", belief_policy, "')");
  }
  if (belief_policy == "opponent" && belief == 0) {
    return bad("--belief-policy opponent needs --belief N (the worlds it weighs)");
  }
  if (oracle_deck && !oracle_hand) {
    return bad("--oracle-deck needs --oracle-hand (it reads the deck's order on top of the hand)");
  }
  if (oracle_hand && belief > 0) {
    return bad(
        "--oracle-hand and --belief cannot be combined: the oracle deals the opponent's "
        "true hand, the belief draws its own");
  }
  if (belief > 0 && worlds > 0) {
    return bad("--belief and --worlds cannot be combined: the belief draws every round's world");
  }
  if (turn_draws < 0 || turn_draws > engine::kMaxColors + 1) {
    return bad("--turn-draws must be in [0, ", engine::kMaxColors + 1, "] (got ", turn_draws,
               "; 0 = off, the rollout policy draws)");
  }
  if (workers < 1 || workers > 1024)
    return bad("--workers must be in [1, 1024] (got ", workers, ")");
  if (width < 1 || width > 65536) {
    return bad("--search-width must be in [1, 65536] (got ", width, ")");
  }
  return absl::OkStatus();
}

bool SearchConfig::rollouts_name_model() const {
  if (NamesModel(rollout_policy)) return true;
  for (const std::string& name : opponent_policies()) {
    if (NamesModel(name)) return true;
  }
  return false;
}

std::vector<std::string> SearchConfig::opponent_policies() const {
  if (opponent_rollout_policy.empty()) return {rollout_policy};
  std::vector<std::string> names;
  size_t begin = 0;
  for (;;) {
    const size_t comma = opponent_rollout_policy.find(',', begin);
    names.push_back(opponent_rollout_policy.substr(begin, comma - begin));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return names;
}

std::string Blueprint::Name() const {
  return is_model() ? lcfr::StreamCat("model (", play.Name(), ")") : bot;
}

void Blueprint::SetValue(const traversal::CfrConfig& cfr) {
  value = cfr.scheme == traversal::Scheme::kValue    ? Value::kInfoset
          : cfr.scheme == traversal::Scheme::kEscher ? Value::kHistory
                                                     : Value::kNone;
  value_scale =
      cfr.payoff_scale > 0 ? cfr.payoff_scale / engine::LostCities::DefaultPayoffScale() : 1.0;
}

void SearchStats::Merge(const SearchStats& o) {
  decisions += o.decisions;
  searched += o.searched;
  deviations += o.deviations;
  win_objective += o.win_objective;
  card_searched += o.card_searched;
  card_deviations += o.card_deviations;
  turn_searched += o.turn_searched;
  rollouts += o.rollouts;
  rounds += o.rounds;
  cut += o.cut;
  believed += o.believed;
  belief_missing += o.belief_missing;
  belief_worlds += o.belief_worlds;
  belief_ess += o.belief_ess;
  hand_matched += o.hand_matched;
  belief_hand_match += o.belief_hand_match;
  uniform_hand_match += o.uniform_hand_match;
  hand_matched_late += o.hand_matched_late;
  belief_hand_match_late += o.belief_hand_match_late;
  uniform_hand_match_late += o.uniform_hand_match_late;
  auto add = [](std::vector<double>& sum, const std::vector<double>& more) {
    if (sum.size() < more.size()) sum.resize(more.size(), 0.0);
    for (size_t i = 0; i < more.size(); ++i) sum[i] += more[i];
  };
  inferred += o.inferred;
  add(opponent_posterior, o.opponent_posterior);
  inferred_late += o.inferred_late;
  add(opponent_posterior_late, o.opponent_posterior_late);
  policy_calls += o.policy_calls;
  batches += o.batches;
  seconds += o.seconds;
  max_seconds = std::max(max_seconds, o.max_seconds);
}

double SearchStats::mean_opponent_posterior(size_t i, bool late) const {
  const std::vector<double>& sum = late ? opponent_posterior_late : opponent_posterior;
  const int64_t n = late ? inferred_late : inferred;
  return n > 0 && i < sum.size() ? sum[i] / static_cast<double>(n) : 0.0;
}

struct SearchPlayer::Worker {
  std::unique_ptr<traversal::Evaluator> evaluator;
  std::unique_ptr<traversal::FiberBatcher> batcher;
  // The rollout model's (--rollout-model; with --opponent-rollout-model a SidesEvaluator over it,
  // or over `evaluator`, and the opponent's), or null: the rollouts run on `batcher`.
  std::unique_ptr<traversal::Evaluator> rollout_evaluator;
  std::unique_ptr<traversal::FiberBatcher> rollout_batcher;
  traversal::FiberBatcher& rollouts() { return rollout_batcher ? *rollout_batcher : *batcher; }
  // The scripted rollout policies of the searching player's side and of each of the opponent's
  // policies, or null for the model. One serves all of the worker's fibers: the bots keep no
  // state between calls.
  std::unique_ptr<engine::Bot> self_bot;
  std::vector<std::unique_ptr<engine::Bot>> opponent_bots;
};

SearchPlayer::SearchPlayer(const engine::LostCities& game, const Blueprint& blueprint,
                           const SearchConfig& config)
    : game_(game), blueprint_(blueprint), config_(config) {}

SearchPlayer::~SearchPlayer() = default;

absl::StatusOr<std::unique_ptr<SearchPlayer>> SearchPlayer::Create(
    const engine::LostCities& game, const Blueprint& blueprint, const SearchConfig& config,
    const EvaluatorFactory& evaluators, const EvaluatorFactory& rollout_evaluators,
    const EvaluatorFactory& opponent_rollout_evaluators) {
  if (absl::Status status = config.Validate(); !status.ok()) return status;
  std::unique_ptr<SearchPlayer> player(new SearchPlayer(game, blueprint, config));
  if (!blueprint.is_model()) {
    auto bot = engine::MakeBot(blueprint.bot);
    if (!bot.ok()) return bot.status();
    player->blueprint_bot_ = *std::move(bot);
  }
  player->objective_ = config.objective == "win"    ? Objective::kWin
                       : config.objective == "auto" ? Objective::kAuto
                                                    : Objective::kScore;
  // The rollout sides: "" = the blueprint, "model" = the model with the blueprint's play.
  auto side = [&](const std::string& name) {
    RolloutSide r;
    r.play = blueprint.play;
    r.bot = name.empty() ? blueprint.bot : NamesModel(name) ? "" : name;
    if (auto play = play::PlayPolicy::Parse(name); play.ok()) r.play = *play;
    return r;
  };
  player->self_ = side(config.rollout_policy);
  for (const std::string& name : config.opponent_policies()) {
    player->opponents_.push_back(side(name));
  }
  bool rollout_model = player->self_.bot.empty();
  const RolloutSide* opponent_model = nullptr;  // the first of the opponent's policies on the model
  for (const RolloutSide& r : player->opponents_) {
    if (r.bot.empty() && opponent_model == nullptr) opponent_model = &r;
  }
  rollout_model = rollout_model || opponent_model != nullptr;
  if (config.rollout_depth > 0 &&
      (!blueprint.is_model() || blueprint.value == Blueprint::Value::kNone)) {
    return absl::InvalidArgumentError(
        "--rollout-depth needs a model with a value network (trained with scheme value or "
        "escher)");
  }
  // The blueprint's belief weighs the opponent's moves under the model: the blueprint's policy,
  // else the opponent's rollout side's (its first on the model), else the searching side's. The
  // opponent's belief weighs them under the opponent's rollout policies (InferOpponent).
  const bool blueprint_belief = config.belief > 0 && config.belief_policy == "blueprint";
  if (blueprint_belief) {
    if (blueprint.is_model()) {
      player->belief_play_ = blueprint.play;
    } else if (opponent_model != nullptr) {
      player->belief_play_ = opponent_model->play;
    } else if (player->self_.bot.empty()) {
      player->belief_play_ = player->self_.play;
    } else {
      return absl::InvalidArgumentError(
          "--belief needs a model: the opponent's moves are weighed under the model's policy "
          "(--belief-policy opponent weighs them under the opponent's rollout policies)");
    }
  }
  const bool needs_model = blueprint.is_model() || rollout_model || blueprint_belief;
  if (needs_model && !evaluators) {
    // Say which option brought the model in.
    const char* flag = blueprint.is_model()        ? "the player (a model)"
                       : player->self_.bot.empty() ? "--rollout-policy"
                       : opponent_model != nullptr ? "--opponent-rollout-policy"
                                                   : "--belief";
    return absl::InvalidArgumentError(
        lcfr::StreamCat(flag, " needs a model, but the player is ",
                        blueprint.is_model() ? "given no networks"
                                             : lcfr::StreamCat("the bot '", blueprint.bot, "'"),
                        ": give --model or --checkpoint, or name bots for the rollouts"));
  }
  const bool separate = !config.rollout_model.empty();
  if (separate && !rollout_model) {
    return absl::InvalidArgumentError(
        "--rollout-model: no side of the rollouts plays the model (--rollout-policy and "
        "--opponent-rollout-policy name bots)");
  }
  if (separate != static_cast<bool>(rollout_evaluators)) {
    return absl::InvalidArgumentError(
        separate ? "search: --rollout-model given, but no evaluators of it"
                 : "search: rollout evaluators given without --rollout-model");
  }
  const bool opponent_separate = !config.opponent_rollout_model.empty();
  if (opponent_separate && opponent_model == nullptr) {
    return absl::InvalidArgumentError(
        "--opponent-rollout-model: no opponent side of the rollouts plays the model "
        "(--opponent-rollout-policy names bots)");
  }
  if (opponent_separate != static_cast<bool>(opponent_rollout_evaluators)) {
    return absl::InvalidArgumentError(
        opponent_separate
            ? "search: --opponent-rollout-model given, but no evaluators of it"
            : "search: opponent rollout evaluators given without --opponent-rollout-model");
  }
  if (opponent_separate) {
    for (RolloutSide& r : player->opponents_) r.model = r.bot.empty() ? 1 : 0;
  }
  traversal::BatcherConfig batcher;
  batcher.width = config.width;
  batcher.stack_bytes = traversal::StackBytesForDepth(64);  // a rollout is a loop
  for (int w = 0; w < config.workers; ++w) {
    auto worker = std::make_unique<Worker>();
    worker->evaluator = needs_model ? evaluators(w) : std::make_unique<NoModelEvaluator>();
    worker->batcher = std::make_unique<traversal::FiberBatcher>(batcher, worker->evaluator.get());
    if (separate) worker->rollout_evaluator = rollout_evaluators(w);
    if (opponent_separate) {
      traversal::Evaluator* self =
          worker->rollout_evaluator ? worker->rollout_evaluator.get() : worker->evaluator.get();
      worker->rollout_evaluator = std::make_unique<SidesEvaluator>(
          self, std::move(worker->rollout_evaluator), opponent_rollout_evaluators(w));
    }
    if (worker->rollout_evaluator) {
      worker->rollout_batcher =
          std::make_unique<traversal::FiberBatcher>(batcher, worker->rollout_evaluator.get());
    }
    // Validated names.
    if (!player->self_.bot.empty()) worker->self_bot = *engine::MakeBot(player->self_.bot);
    for (const RolloutSide& r : player->opponents_) {
      worker->opponent_bots.push_back(r.bot.empty() ? nullptr : *engine::MakeBot(r.bot));
    }
    player->workers_.push_back(std::move(worker));
  }
  return player;
}

std::string SearchPlayer::Name() const {
  return lcfr::StreamCat("search over ", blueprint_.Name());
}

std::vector<engine::SeenMove>& SearchPlayer::Record(int seat, const engine::State& state) {
  // A game's first decision has no past: the record of the game before it goes.
  if (state.decisions == 0) seen_[seat].clear();
  return seen_[seat];
}

void SearchPlayer::Observe(const engine::LostCities& game, const engine::State& before, int action,
                           int seat) {
  if (seat < 0 || seat > 1) return;
  std::vector<engine::SeenMove>& seen = Record(seat, before);
  // A record that missed a move stays short, and the belief is skipped for the rest of the game.
  if (seen.size() == before.decisions) seen.push_back(engine::SeeMove(game, before, action, seat));
}

bool SearchPlayer::KnowsPast(const engine::State& state,
                             const std::vector<engine::SeenMove>& seen) const {
  // No moves: only the deal itself has no past (a position handed over without its decisions,
  // as an agent protocol line may be, is not the deal).
  return seen.size() == state.decisions && (state.decisions > 0 || game_.IsDeal(state));
}

void SearchPlayer::Forget() {
  seen_[0].clear();
  seen_[1].clear();
}

std::vector<char> SearchPlayer::RunOnWorkers(
    int n, Clock::time_point deadline, const std::function<void(int64_t)>& prepare,
    const std::function<void(int64_t, traversal::PolicyClient&, Worker&)>& task) {
  std::vector<char> ran;
  const bool timed = deadline != Clock::time_point::max();
  // Untimed: one run of all the tasks. Timed: runs of about 4 x width tasks per worker, the clock
  // read between them and at every task's start.
  const int workers = std::max(1, std::min(config_.workers, n));
  const int64_t chunk = timed ? 4 * static_cast<int64_t>(config_.width) * workers : n;
  for (int64_t first = 0; first < n; first += chunk) {
    if (timed && Clock::now() >= deadline) break;
    const int64_t count = std::min<int64_t>(n - first, chunk);
    prepare(first + count);
    ran.resize(static_cast<size_t>(first + count), 0);
    RunOnThreads(workers, [&](int w) {
      const int64_t begin = first + count * w / workers;
      const int64_t end = first + count * (w + 1) / workers;
      Worker& worker = *workers_[w];
      worker.batcher->Run(end - begin, [&](int64_t i, traversal::PolicyClient& policy) {
        if (timed && Clock::now() >= deadline) return;
        task(begin + i, policy, worker);
        ran[begin + i] = 1;
      });
    });
  }
  return ran;
}

bool SearchPlayer::Believe(const engine::State& state, uint64_t seed, Clock::time_point deadline,
                           std::vector<engine::State>& worlds, std::vector<double>& cumulative) {
  const std::vector<engine::SeenMove>& seen = Record(state.player, state);
  if (!KnowsPast(state, seen)) return false;
  const int opponent = 1 - state.player;
  worlds.clear();
  std::vector<double> log_likelihood;
  auto task = [&](int64_t i, traversal::PolicyClient& policy) {
    engine::Rng rng(engine::DeriveSeed({seed, kBeliefStream, static_cast<uint64_t>(i)}));
    absl::StatusOr<engine::WorldHistory> world =
        engine::SampleWorldHistory(game_, state, seen, rng);
    LCFR_CHECK(world.ok()) << "search: the game's moves do not fit the state: "
                           << world.status().message();
    play::PolicyBot model(&policy, belief_play_, game_);
    engine::Rng unused(0);
    engine::State t = world->deal;
    double sum = 0;
    for (const int a : world->actions) {
      if (t.player == opponent) {
        model.ActOnState(game_, t, unused);
        const int legal = std::popcount(game_.LegalMask(t));
        sum += std::log((1 - kBeliefUniform) * model.probabilities()[a] + kBeliefUniform / legal);
      }
      game_.ApplyUnchecked(t, a);
    }
    worlds[i] = world->now;
    log_likelihood[i] = sum;
  };
  // The worlds' storage grows with the chunks about to run: a budget cut short allocates only
  // what it draws.
  const std::vector<char> ran = RunOnWorkers(
      config_.belief, deadline,
      [&](int64_t end) {
        worlds.resize(static_cast<size_t>(end));
        log_likelihood.resize(static_cast<size_t>(end), 0.0);
      },
      [&](int64_t i, traversal::PolicyClient& policy, Worker&) { task(i, policy); });
  // A world the budget left undrawn weighs nothing; none drawn: no belief.
  const int n = static_cast<int>(ran.size());
  int drawn = 0;
  for (int i = 0; i < n; ++i) {
    if (ran[i]) {
      ++drawn;
    } else {
      log_likelihood[i] = -std::numeric_limits<double>::infinity();
    }
  }
  if (drawn == 0) return false;
  const double ess = BeliefWeights(log_likelihood, n, 1, 0, config_.belief_power, cumulative);
  CountBelief(drawn, ess);
  return true;
}

void SearchPlayer::CountHandMatch(const engine::State& state,
                                  const std::vector<engine::State>& worlds,
                                  const std::vector<int>& picks) {
  const int unknown = engine::OpponentUnknownCards(state);
  if (unknown == 0 || picks.empty()) return;
  double sum = 0;
  for (const int i : picks) sum += engine::OpponentHandMatch(worlds[i], state);
  const double belief = sum / static_cast<double>(picks.size());
  const double uniform = static_cast<double>(unknown) / (unknown + state.deck_size);
  ++stats_.hand_matched;
  stats_.belief_hand_match += belief;
  stats_.uniform_hand_match += uniform;
  if (state.decisions >= SearchStats::kLateDecision) {
    ++stats_.hand_matched_late;
    stats_.belief_hand_match_late += belief;
    stats_.uniform_hand_match_late += uniform;
  }
}

void SearchPlayer::CountBelief(int worlds, double ess) {
  last_.belief_ess = ess;
  ++stats_.believed;
  stats_.belief_worlds += worlds;
  stats_.belief_ess += ess;
}

std::vector<int> JointBeliefPicks(const std::vector<double>& log_likelihood, int types,
                                  const std::vector<int>& of_round,
                                  const std::vector<double>& posterior, double power, uint64_t seed,
                                  double& ess) {
  LCFR_CHECK(types >= 1 && log_likelihood.size() % types == 0 && !log_likelihood.empty())
      << "JointBeliefPicks: " << log_likelihood.size() << " likelihoods for " << types
      << " policies";
  const int n = static_cast<int>(log_likelihood.size() / types);
  std::vector<int> picks(of_round.size(), 0);
  ess = 0;
  for (int t = 0; t < types; ++t) {
    std::vector<size_t> of_t;  // the rounds that play t, in order
    for (size_t r = 0; r < of_round.size(); ++r) {
      if (of_round[r] == t) of_t.push_back(r);
    }
    std::vector<double> cumulative;
    ess += posterior[t] * BeliefWeights(log_likelihood, n, types, t, power, cumulative);
    if (of_t.empty()) continue;
    engine::Rng rng(engine::DeriveSeed({seed, static_cast<uint64_t>(t)}));
    std::vector<int> chosen = SystematicPicks(cumulative, cumulative.back(),
                                              static_cast<int>(of_t.size()), rng.UniformDouble());
    Shuffle(chosen, rng);
    for (size_t j = 0; j < of_t.size(); ++j) picks[of_t[j]] = chosen[j];
  }
  return picks;
}

bool SearchPlayer::InferOpponent(const engine::State& state, uint64_t seed,
                                 Clock::time_point deadline, std::vector<double>& posterior,
                                 std::vector<engine::State>* worlds,
                                 std::vector<double>* log_likelihood_out) {
  const int types = static_cast<int>(opponents_.size());
  const bool believe = worlds != nullptr;
  posterior.assign(types, 1.0 / types);  // the prior
  const std::vector<engine::SeenMove>& seen = Record(state.player, state);
  if (!KnowsPast(state, seen)) return false;
  const int opponent = 1 - state.player;
  // log_likelihood[i * types + t]: the opponent's moves in world i under policy t.
  std::vector<double> log_likelihood;
  if (believe) worlds->clear();
  auto task = [&](int64_t i, traversal::PolicyClient& policy, Worker& worker) {
    engine::Rng rng(engine::DeriveSeed({seed, kOpponentStream, static_cast<uint64_t>(i)}));
    absl::StatusOr<engine::WorldHistory> world =
        engine::SampleWorldHistory(game_, state, seen, rng);
    LCFR_CHECK(world.ok()) << "search: the game's moves do not fit the state: "
                           << world.status().message();
    std::vector<std::unique_ptr<play::PolicyBot>> models(types);
    for (int t = 0; t < types; ++t) {
      if (opponents_[t].bot.empty()) {
        models[t] = std::make_unique<play::PolicyBot>(&policy, opponents_[t].play, game_);
      }
    }
    double* sum = &log_likelihood[static_cast<size_t>(i) * types];
    engine::State s = world->deal;
    for (const int a : world->actions) {
      if (s.player == opponent) {
        const int legal = std::popcount(game_.LegalMask(s));
        for (int t = 0; t < types; ++t) {
          engine::Bot& who = models[t] ? *models[t] : *worker.opponent_bots[t];
          const double p = who.Probability(game_, s, a);
          sum[t] += std::log((1 - kBeliefUniform) * p + kBeliefUniform / legal);
        }
      }
      game_.ApplyUnchecked(s, a);
    }
    if (believe) (*worlds)[i] = world->now;
  };
  // The storage grows with the chunks about to run: a budget cut short allocates only what it
  // draws.
  const std::vector<char> ran = RunOnWorkers(
      believe ? config_.belief : config_.opponent_worlds, deadline,
      [&](int64_t end) {
        log_likelihood.resize(static_cast<size_t>(end) * types, 0.0);
        if (believe) worlds->resize(static_cast<size_t>(end));
      },
      task);
  const int n = static_cast<int>(ran.size());
  // Each policy's mean likelihood over the worlds drawn within the budget (in log space, summed
  // in index order), then normalised: the posterior under a uniform prior. None drawn: the prior.
  int drawn = 0;
  for (int i = 0; i < n; ++i) {
    if (ran[i]) {
      ++drawn;
      continue;
    }
    for (int t = 0; t < types; ++t) {
      log_likelihood[static_cast<size_t>(i) * types + t] = -std::numeric_limits<double>::infinity();
    }
  }
  if (drawn == 0) return false;
  std::vector<double> log_mean(types);
  for (int t = 0; t < types; ++t) {
    double top = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < n; ++i) top = std::max(top, log_likelihood[i * types + t]);
    double total = 0;
    for (int i = 0; i < n; ++i) total += std::exp(log_likelihood[i * types + t] - top);
    log_mean[t] = top + std::log(total / drawn);
  }
  const double top = *std::max_element(log_mean.begin(), log_mean.end());
  double total = 0;
  for (int t = 0; t < types; ++t) total += posterior[t] = std::exp(log_mean[t] - top);
  for (double& p : posterior) p /= total;
  if (types > 1) {
    ++stats_.inferred;
    const bool late = state.decisions >= SearchStats::kLateDecision;
    stats_.inferred_late += late;
    stats_.opponent_posterior.resize(types, 0.0);
    stats_.opponent_posterior_late.resize(types, 0.0);
    for (int t = 0; t < types; ++t) {
      stats_.opponent_posterior[t] += posterior[t];
      if (late) stats_.opponent_posterior_late[t] += posterior[t];
    }
  }
  if (log_likelihood_out != nullptr) *log_likelihood_out = std::move(log_likelihood);
  return true;
}

int SearchPlayer::Act(const engine::LostCities&, const engine::View&, engine::Rng&) {
  LCFR_CHECK(false) << "SearchPlayer needs the state (the discard piles' order): call ActOnState";
  return -1;
}

int SearchPlayer::BlueprintChoice(const engine::State& state, engine::Rng& rng,
                                  std::vector<float>& probabilities) {
  probabilities.clear();
  if (blueprint_bot_) return blueprint_bot_->ActOnState(game_, state, rng);
  traversal::PolicyClient direct = traversal::PolicyClient::Direct(workers_[0]->evaluator.get());
  play::PolicyBot root(&direct, blueprint_.play, game_);
  const int action = root.ActOnState(game_, state, rng);
  probabilities.assign(root.probabilities().begin(), root.probabilities().end());
  return action;
}

std::vector<int> SearchPlayer::TurnDraws(const engine::State& state, int card, uint64_t seed,
                                         int& preferred) {
  engine::State after = state;
  game_.ApplyUnchecked(after, card);
  std::vector<int> draws;
  preferred = -1;
  if (engine::LostCities::IsTerminal(after) || after.phase != engine::Phase::kDraw) return draws;
  const uint32_t legal = game_.LegalMask(after);
  for (uint32_t m = legal; m; m &= m - 1) draws.push_back(std::countr_zero(m));
  // The blueprint at the draw decision: the mover's own state after its card action, which
  // reveals nothing it does not know.
  engine::Rng own(engine::DeriveSeed({seed, kTurnStream, static_cast<uint64_t>(card)}));
  std::vector<float> probabilities;
  preferred = BlueprintChoice(after, own, probabilities);
  if (probabilities.empty()) return draws;  // a bot: every legal draw
  std::stable_sort(draws.begin(), draws.end(),
                   [&](int x, int y) { return probabilities[x] > probabilities[y]; });
  preferred = draws[0];
  if (static_cast<int>(draws.size()) > config_.turn_draws) draws.resize(config_.turn_draws);
  std::sort(draws.begin(), draws.end());
  return draws;
}

double SearchPlayer::Rollout(const engine::State& world, int action, int draw, uint64_t stream,
                             int opponent, Clock::time_point deadline,
                             traversal::PolicyClient& policy, Worker& worker, bool& cut) {
  engine::Rng rng(stream);
  engine::State t = world;
  const int mover = engine::LostCities::CurrentPlayer(t);
  game_.ApplyUnchecked(t, action);
  if (draw >= 0) {
    LCFR_CHECK((game_.LegalMask(t) >> draw) & 1) << "the turn's draw " << draw << " is illegal";
    game_.ApplyUnchecked(t, draw);
  }
  // bots[p]: who plays seat p (the mover's seat: self_, the other: opponents_[opponent]).
  std::unique_ptr<play::PolicyBot> models[2];
  engine::Bot* bots[2];
  for (int side = 0; side < 2; ++side) {
    engine::Bot*& bot = bots[side == 0 ? mover : 1 - mover];
    bot = side == 0 ? worker.self_bot.get() : worker.opponent_bots[opponent].get();
    if (bot == nullptr) {
      const RolloutSide& r = side == 0 ? self_ : opponents_[opponent];
      models[side] = std::make_unique<play::PolicyBot>(&policy, r.play, game_, -1, r.model);
      bot = models[side].get();
    }
  }
  cut = false;
  const bool timed = deadline != Clock::time_point::max();
  for (int steps = 0; !engine::LostCities::IsTerminal(t); ++steps) {
    // Past the deadline a rollout stops where it is and counts as not played: the decision
    // then ends within one batch of its budget.
    if (timed && Clock::now() >= deadline) return std::numeric_limits<double>::quiet_NaN();
    if (steps == config_.rollout_depth && steps > 0) {
      cut = true;
      return CutValue(t, mover, policy);
    }
    const int a = bots[engine::LostCities::CurrentPlayer(t)]->ActOnState(game_, t, rng);
    LCFR_CHECK((game_.LegalMask(t) >> a) & 1) << "the rollout policy chose illegal action " << a;
    game_.ApplyUnchecked(t, a);
  }
  return engine::LostCities::Payoff(t, mover) / engine::LostCities::DefaultPayoffScale();
}

double SearchPlayer::CutValue(const engine::State& t, int mover, traversal::PolicyClient& policy) {
  const int player = engine::LostCities::CurrentPlayer(t);
  const uint32_t legal = game_.LegalMask(t);
  // sigma: the blueprint's distribution at the player's infoset (its choice is not used).
  play::PolicyBot blueprint(&policy, blueprint_.play, game_);
  engine::Rng unused(0);
  blueprint.ActOnState(game_, t, unused);
  std::vector<float> features(game_.EncodingSize()), q(game_.num_actions());
  if (blueprint_.value == Blueprint::Value::kHistory) {
    engine::View history;
    game_.HistoryView(t, history);
    game_.Encode(history, features);
  } else {
    game_.Encode(t, features);
  }
  policy.Evaluate(traversal::kValueNetwork, traversal::Head::kRaw, features, legal, q);
  double value = 0;
  for (uint32_t m = legal; m; m &= m - 1) {
    const int a = std::countr_zero(m);
    value += blueprint.probabilities()[a] * q[a];
  }
  value *= blueprint_.value_scale;
  return player == mover ? value : -value;
}

int SearchPlayer::ActOnState(const engine::LostCities& game, const engine::State& state,
                             engine::Rng& rng) {
  LCFR_CHECK(game.rules() == game_.rules()) << "the search was built for other rules";
  const Clock::time_point start = Clock::now();
  const uint64_t seed = rng.Next();
  engine::Rng own(engine::DeriveSeed({seed, kBlueprintStream}));
  std::vector<float> probabilities;
  const int b = BlueprintChoice(state, own, probabilities);

  // The candidates.
  const uint32_t legal = game_.LegalMask(state);
  std::vector<int> candidates;
  for (uint32_t m = legal; m; m &= m - 1) candidates.push_back(std::countr_zero(m));
  if (config_.candidates > 0 && !probabilities.empty() &&
      static_cast<int>(candidates.size()) > config_.candidates) {
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](int x, int y) { return probabilities[x] > probabilities[y]; });
    candidates.resize(config_.candidates);
    if (std::find(candidates.begin(), candidates.end(), b) == candidates.end()) {
      candidates.push_back(b);
    }
    std::sort(candidates.begin(), candidates.end());
  }
  LCFR_CHECK(std::find(candidates.begin(), candidates.end(), b) != candidates.end())
      << "the blueprint chose an illegal action " << b;
  // The turn searched whole (turn_draws, a card decision with a choice): each card action with
  // its draws, b's pair with the blueprint's own draw after it the fallback.
  std::vector<int> draws(candidates.size(), -1);
  int b_draw = -1;
  const bool turn =
      config_.turn_draws > 0 && state.phase == engine::Phase::kCard && candidates.size() > 1;
  if (turn) {
    // Ascending by card, then draw: the cards are, and TurnDraws returns each one's sorted.
    const std::vector<int> cards = std::move(candidates);
    candidates.clear();
    draws.clear();
    for (int c : cards) {
      int preferred = -1;
      std::vector<int> d = TurnDraws(state, c, seed, preferred);
      if (c == b) b_draw = preferred;
      if (d.empty()) d.push_back(-1);
      for (int x : d) candidates.push_back(c), draws.push_back(x);
    }
  }
  last_ = SearchDecision{};
  last_.candidates = candidates;
  last_.draws = draws;
  last_.blueprint = b;
  ++stats_.decisions;
  const int count = static_cast<int>(candidates.size());
  // b's pair: its most probable draw is among a model's K, a bot's choice among all its draws.
  int kb = 0;
  while (kb < count && (candidates[kb] != b || draws[kb] != b_draw)) ++kb;
  LCFR_CHECK_LT(kb, count) << "the blueprint's action " << b << " is not a candidate";
  if (count == 1) {
    last_.chosen = b;
    last_.mean.assign(1, 0.0);
    last_.stderr_d.assign(1, 0.0);
    return b;
  }

  // The phases. Uniform: one, every candidate in every round. Successive halving: after each
  // phase the worse half of the candidates other than b drops out, b stays (it is the
  // fallback), and every phase spends about an equal share of the budget on its survivors
  // (sizes[p]: the candidates other than b in phase p; rounds_of[p]: its rounds). Racing:
  // phases of 1/kRacingPhases of uniform's rounds until the budget is spent, the candidates
  // that trail clearly dropping out after each (below).
  const bool racing = config_.allocation == "racing";
  const int uniform_rounds = std::max(1, config_.rollouts / count);
  std::vector<int> sizes;
  if (config_.allocation == "halving" && count > 2) {
    for (int s = count - 1;; s = (s + 1) / 2) {
      sizes.push_back(s);
      if (s == 1) break;
    }
  } else {
    sizes.push_back(count - 1);
  }
  const int phases = racing ? std::numeric_limits<int>::max() : static_cast<int>(sizes.size());
  std::vector<int> rounds_of(racing ? 0 : phases);
  int planned = 0;  // the most rounds the decision can play
  for (size_t p = 0; p < rounds_of.size(); ++p) {
    rounds_of[p] = std::max(1, config_.rollouts / phases / (sizes[p] + 1));
    planned += rounds_of[p];
  }
  if (racing) planned = std::max(uniform_rounds, config_.rollouts / 2);  // b and one other
  // The policy calls of the belief and the rollouts, counted on both batchers.
  auto calls = [this](int64_t& total_calls, int64_t& total_batches) {
    total_calls = total_batches = 0;
    for (const auto& worker : workers_) {
      for (traversal::FiberBatcher* batcher :
           {worker->batcher.get(), worker->rollout_batcher.get()}) {
        if (batcher == nullptr) continue;
        total_calls += batcher->stats().policy_calls;
        total_batches += batcher->stats().batches();
      }
    }
  };
  int64_t calls_before = 0, batches_before = 0;
  calls(calls_before, batches_before);
  const bool timed = config_.move_time_ms > 0;
  const Clock::time_point deadline =
      timed ? start + std::chrono::milliseconds(config_.move_time_ms) : Clock::time_point::max();
  // The worlds of opponent inference and the belief may take half of a time budget; the
  // rollouts have the rest (and whatever those leave).
  const Clock::time_point worlds_deadline =
      timed ? start + std::chrono::microseconds(500 * static_cast<int64_t>(config_.move_time_ms))
            : Clock::time_point::max();
  // The belief's worlds with their weights (running sums), when asked for and the game's moves
  // are at hand; the opponent's policies' posterior, inferred from its moves when there are
  // several (with the belief under the opponent's policies, its worlds' likelihoods too).
  std::vector<engine::State> belief_worlds;
  std::vector<double> belief_cumulative;
  std::vector<double> posterior(opponents_.size(), 1.0 / static_cast<double>(opponents_.size()));
  std::vector<double> joint_likelihood;
  bool believed = false;
  const bool opponent_belief = config_.belief > 0 && config_.belief_policy == "opponent";
  if (opponent_belief) {
    believed =
        InferOpponent(state, seed, worlds_deadline, posterior, &belief_worlds, &joint_likelihood);
    stats_.belief_missing += !believed;
  } else {
    if (config_.belief > 0) {
      believed = Believe(state, seed, worlds_deadline, belief_worlds, belief_cumulative);
      stats_.belief_missing += !believed;
    }
    if (opponents_.size() > 1) InferOpponent(state, seed, worlds_deadline, posterior);
  }
  if (opponents_.size() > 1) last_.opponent_posterior = posterior;
  // The plan: per round, the opponent's rollout policy (systematic resampling from the
  // posterior) and the belief's world (from its weights), drawn in blocks of kPlanBlock rounds as
  // the rounds are about to run, so that a decision draws only what it plays however large its
  // budget in rollouts. Each block takes its own offset and is shuffled (the belief's in index
  // order but under racing), so any prefix of the rounds follows the weights; a plan of one block
  // is what a single draw over all the rounds gives.
  std::vector<int> opponent_of_round, picks;
  auto extend_plan = [&](int rounds) {
    while (static_cast<int>(opponent_of_round.size()) < rounds) {
      const int begin = static_cast<int>(opponent_of_round.size());
      const uint64_t block = static_cast<uint64_t>(begin / kPlanBlock);
      // The planned rounds in blocks (past the plan, should a phase ask for more: what it asks).
      const int n = std::min(kPlanBlock, std::max(planned, rounds) - begin);
      // Block 0 keeps the streams of a single draw; later blocks add their index.
      auto stream = [&](std::initializer_list<uint64_t> tags) {
        const uint64_t base = engine::DeriveSeed(tags);
        return block == 0 ? base : engine::DeriveSeed({base, block});
      };
      std::vector<int> of_block(n, 0);
      if (opponents_.size() > 1) {
        std::vector<double> cumulative(posterior.size());
        double sum = 0;
        for (size_t t = 0; t < posterior.size(); ++t) cumulative[t] = sum += posterior[t];
        engine::Rng draw(stream({seed, kOpponentStream, ~uint64_t{0}}));
        of_block = SystematicPicks(cumulative, 1.0, n, draw.UniformDouble());
        Shuffle(of_block, draw);
      }
      opponent_of_round.insert(opponent_of_round.end(), of_block.begin(), of_block.end());
      if (!believed) continue;
      std::vector<int> world_of_block;
      if (opponent_belief) {
        double ess = 0;
        world_of_block = JointBeliefPicks(joint_likelihood, static_cast<int>(opponents_.size()),
                                          of_block, posterior, config_.belief_power,
                                          stream({seed, kBeliefStream, kOpponentStream}), ess);
        if (block == 0) {
          CountBelief(static_cast<int>(joint_likelihood.size() / opponents_.size()), ess);
        }
      } else {
        engine::Rng offset(stream({seed, kBeliefStream, ~uint64_t{0}}));
        world_of_block =
            SystematicPicks(belief_cumulative, belief_cumulative.back(), n, offset.UniformDouble());
        if (racing) {
          engine::Rng shuffle(stream({seed, kBeliefStream, kRacingShuffle}));
          Shuffle(world_of_block, shuffle);
        }
      }
      // The hand-match diagnostic reads the first block's worlds.
      if (block == 0) CountHandMatch(state, belief_worlds, world_of_block);
      picks.insert(picks.end(), world_of_block.begin(), world_of_block.end());
    }
  };
  // y[r * count + k]: the payoff of round r for candidate k (the mover's score difference / 100);
  // NaN where it was not played. Grown phase by phase (never while rollouts run). value(v): the
  // objective's result for payoff v (the win objective's: WinOf); auto's is chosen after the
  // first phase.
  std::vector<double> y;
  bool win = objective_ == Objective::kWin;
  auto value = [&win](double v) { return win ? WinOf(v) : v; };
  std::vector<char> cut;
  // Rollout (r, k): world r, candidate k; its result depends on the seed, r and k alone.
  auto rollout = [&](int r, int k, traversal::PolicyClient& policy, Worker& worker) {
    if (timed && Clock::now() >= deadline) return;
    const uint64_t world_index =
        config_.worlds > 0 ? static_cast<uint64_t>(r % config_.worlds) : static_cast<uint64_t>(r);
    engine::Rng world_rng(engine::DeriveSeed({seed, kWorldStream, world_index}));
    engine::State world;
    if (believed) {
      world = belief_worlds[picks[r]];
      engine::LostCities::ShuffleRemainingDeck(world, world_rng);
    } else if (config_.oracle_deck) {
      world = engine::OracleWorld(state);
    } else if (config_.oracle_hand) {
      world = engine::OracleHandWorld(state, world_rng);
    } else {
      world = engine::SampleWorld(game_, state, world_rng);
    }
    bool was_cut = false;
    const int64_t slot = static_cast<int64_t>(r) * count + k;
    const int opponent = opponent_of_round.empty() ? 0 : opponent_of_round[r];
    y[slot] = Rollout(world, candidates[k], draws[k],
                      engine::DeriveSeed({seed, kRolloutStream, static_cast<uint64_t>(r)}),
                      opponent, deadline, policy, worker, was_cut);
    cut[slot] = was_cut;
  };
  // The mean of candidate k over the rounds in [0, end) where it was played.
  auto mean_of = [&](int k, int end) {
    double sum = 0;
    int n = 0;
    for (int r = 0; r < end; ++r) {
      const double v = value(y[static_cast<int64_t>(r) * count + k]);
      if (!std::isnan(v)) sum += v, ++n;
    }
    return n > 0 ? sum / n : -std::numeric_limits<double>::infinity();
  };
  // Whether candidate k's paired difference to j over the rounds [0, end) where both were played
  // is below zero by more than z standard errors (it trails j clearly; needs two rounds).
  auto trails = [&](int k, int j, int end, double z) {
    int m = 0;
    double sum = 0, sum2 = 0;
    for (int r = 0; r < end; ++r) {
      const int64_t row = static_cast<int64_t>(r) * count;
      const double d = value(y[row + k]) - value(y[row + j]);
      if (!std::isnan(d)) sum += d, sum2 += d * d, ++m;
    }
    if (m < 2) return false;
    return sum / m + z * StandardError(sum, sum2, m) < 0;
  };
  // active: the candidates of the phase (indices into `candidates`, ascending; b among them).
  std::vector<int> active(count);
  for (int k = 0; k < count; ++k) active[k] = k;
  int first = 0;                 // the phase's first round
  int64_t planned_rollouts = 0;  // the rollouts of the phases so far
  for (int p = 0; p < phases; ++p) {
    const int in_phase = static_cast<int>(active.size());
    int phase_rounds = 0;
    if (racing) {
      const int64_t step = std::max(1, uniform_rounds / kRacingPhases);
      phase_rounds = static_cast<int>(
          std::min<int64_t>(step, (config_.rollouts - planned_rollouts) / in_phase));
      if (p == 0) phase_rounds = std::max(1, phase_rounds);
      if (phase_rounds < 1) break;
    } else {
      phase_rounds = rounds_of[p];
    }
    // Task j of the phase: round first + j / |active|, candidate active[j % |active|].
    const int64_t tasks = static_cast<int64_t>(phase_rounds) * in_phase;
    // Without a time budget one run of the phase's tasks; with one, runs of about 4 x width tasks
    // per worker (whole rounds), the clock read between them: a skipped task is cheap, not free.
    const int workers = static_cast<int>(std::min<int64_t>(config_.workers, tasks));
    int64_t chunk = tasks;
    if (timed) {
      const int64_t per_chunk = 4 * static_cast<int64_t>(config_.width) * workers;
      chunk = std::max<int64_t>(1, per_chunk / in_phase) * in_phase;
    }
    // The results and the plan grow with the rounds about to run (a chunk is whole rounds), never
    // while rollouts run; a phase the deadline cuts short ends at the rounds that were sized.
    int sized = first;
    for (int64_t begin_task = 0; begin_task < tasks; begin_task += chunk) {
      if (timed && Clock::now() >= deadline) break;
      const int64_t n = std::min(tasks - begin_task, chunk);
      sized = first + static_cast<int>((begin_task + n + in_phase - 1) / in_phase);
      y.resize(static_cast<size_t>(sized) * count, std::numeric_limits<double>::quiet_NaN());
      cut.resize(y.size(), 0);
      extend_plan(sized);
      RunOnThreads(workers, [&](int w) {
        const int64_t begin = begin_task + n * w / workers;
        const int64_t end = begin_task + n * (w + 1) / workers;
        Worker& worker = *workers_[w];
        worker.rollouts().Run(end - begin, [&](int64_t i, traversal::PolicyClient& policy) {
          const int64_t j = begin + i;
          rollout(first + static_cast<int>(j / in_phase), active[j % in_phase], policy, worker);
        });
      });
    }
    first = sized;
    planned_rollouts += tasks;
    if (p == 0 && objective_ == Objective::kAuto) {
      // Auto: the win objective when b's share of wins so far (its mean under the win
      // objective; none played, under a time budget: undecided) says the game is all but decided.
      win = true;
      double share = mean_of(kb, first);
      if (std::isinf(share)) share = 0.5;
      win = share >= kAutoWinShare || share <= 1 - kAutoWinShare;
    }
    if (p + 1 == phases || (timed && Clock::now() >= deadline)) break;
    if (racing) {
      // The best so far; the others but b drop out when they trail it or b clearly.
      const double z = config_.drop_threshold;
      int best = active[0];
      for (int k : active) {
        if (mean_of(k, first) > mean_of(best, first)) best = k;
      }
      std::vector<int> kept;
      for (int k : active) {
        if (k == kb || k == best || !(trails(k, best, first, z) || trails(k, kb, first, z))) {
          kept.push_back(k);
        }
      }
      active = std::move(kept);
      // Done: b alone, or one other that beats b clearly (b trails it).
      if (active.size() == 1) break;
      if (active.size() == 2) {
        const int other = active[0] == kb ? active[1] : active[0];
        if (trails(kb, other, first, std::max(z, config_.threshold))) break;
      }
      continue;
    }
    // Halving's survivors: the best sizes[p + 1] others by their mean so far (ties: the lower
    // action).
    std::vector<int> others;
    for (int k : active) {
      if (k != kb) others.push_back(k);
    }
    std::vector<double> means(count);
    for (int k : others) means[k] = mean_of(k, first);
    std::stable_sort(others.begin(), others.end(),
                     [&](int x, int z) { return means[x] > means[z]; });
    others.resize(sizes[p + 1]);
    others.push_back(kb);
    std::sort(others.begin(), others.end());
    active = std::move(others);
  }
  const int rounds = first;
  int64_t calls_after = 0, batches_after = 0;
  calls(calls_after, batches_after);
  stats_.policy_calls += calls_after - calls_before;
  stats_.batches += batches_after - batches_before;

  // The complete rounds of the last phase's candidates, their means and paired differences
  // against b; a candidate that dropped out is reported over the rounds it played.
  std::vector<int> complete;
  for (int r = 0; r < rounds; ++r) {
    bool all = true;
    for (int k : active) all = all && !std::isnan(y[static_cast<int64_t>(r) * count + k]);
    if (all) complete.push_back(r);
  }
  for (double v : y) last_.rollouts += !std::isnan(v);
  for (char c : cut) stats_.cut += c;
  const int n = static_cast<int>(complete.size());
  last_.rounds = n;
  last_.mean.assign(count, 0.0);
  last_.stderr_d.assign(count, 0.0);
  last_.played.assign(count, 0);
  for (int k = 0; k < count; ++k) {
    std::vector<int> played;
    if (std::binary_search(active.begin(), active.end(), k)) {
      played = complete;
    } else {
      for (int r = 0; r < rounds; ++r) {
        const int64_t row = static_cast<int64_t>(r) * count;
        if (!std::isnan(y[row + k]) && !std::isnan(y[row + kb])) played.push_back(r);
      }
    }
    const int m = static_cast<int>(played.size());
    double sum = 0, sum_d = 0, sum_d2 = 0;
    for (int r : played) {
      const double v = value(y[static_cast<int64_t>(r) * count + k]);
      const double d = v - value(y[static_cast<int64_t>(r) * count + kb]);
      sum += v;
      sum_d += d;
      sum_d2 += d * d;
    }
    last_.played[k] = m;
    if (m > 0) last_.mean[k] = sum / m;
    last_.stderr_d[k] = StandardError(sum_d, sum_d2, m);
  }
  int best = kb;
  for (int k : active) {
    if (n > 0 && last_.mean[k] > last_.mean[best]) best = k;
  }
  int chosen = b;
  if (candidates[best] != b) {
    // Against b at its best: b's pair with the best mean (without turn draws, b itself).
    int base = kb;
    for (int k : active) {
      if (candidates[k] == b && last_.mean[k] > last_.mean[base]) base = k;
    }
    const double gain = last_.mean[best] - last_.mean[base];
    double se = last_.stderr_d[best];
    if (base != kb) {
      double sum_d = 0, sum_d2 = 0;
      for (int r : complete) {
        const int64_t row = static_cast<int64_t>(r) * count;
        const double d = value(y[row + best]) - value(y[row + base]);
        sum_d += d;
        sum_d2 += d * d;
      }
      se = StandardError(sum_d, sum_d2, n);
    }
    // A gain within float rounding (equal network estimates, summed in another order) is no
    // gain: payoffs move in steps of 0.01.
    constexpr double kRounding = 1e-6;
    const bool beyond = gain > kRounding && gain >= config_.min_gain &&
                        (std::isinf(se) ? config_.threshold == 0 : gain > config_.threshold * se);
    if (beyond) chosen = candidates[best];
  }
  last_.chosen = chosen;
  last_.win_objective = win;
  last_.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  ++stats_.searched;
  stats_.deviations += chosen != b;
  if (state.phase == engine::Phase::kCard) {
    ++stats_.card_searched;
    stats_.card_deviations += chosen != b;
  }
  stats_.turn_searched += turn;
  stats_.win_objective += last_.win_objective;
  stats_.rollouts += last_.rollouts;
  stats_.rounds += n;
  stats_.seconds += last_.seconds;
  stats_.max_seconds = std::max(stats_.max_seconds, last_.seconds);
  return chosen;
}

absl::StatusOr<SearchMatchResult> PlaySearchMatch(
    const engine::LostCities& game, const Blueprint& blueprint, const SearchConfig& config,
    const EvaluatorFactory& evaluators, const std::string& opponent, int games, uint64_t seed,
    int threads, const std::function<void(int)>& progress,
    const EvaluatorFactory& rollout_evaluators,
    const EvaluatorFactory& opponent_rollout_evaluators) {
  if (opponent != "self" && !KnownBot(opponent)) {
    return absl::InvalidArgumentError(lcfr::StreamCat("unknown opponent '", opponent, "'"));
  }
  if (games < 1 || threads < 1) {
    return absl::InvalidArgumentError("a search match needs games and threads >= 1");
  }
  threads = std::min(threads, games);
  const int per_thread = config.workers + 1;
  // Every player, built here before any thread starts.
  struct Seat {
    std::unique_ptr<SearchPlayer> player;
    std::unique_ptr<traversal::Evaluator> evaluator;  // the "self" opponent's model
    traversal::PolicyClient client;
    std::unique_ptr<engine::Bot> opponent;
  };
  std::vector<Seat> seats(threads);
  for (int t = 0; t < threads; ++t) {
    EvaluatorFactory mine;
    if (evaluators) mine = [&](int w) { return evaluators(t * per_thread + w); };
    EvaluatorFactory rollouts;
    if (rollout_evaluators) {
      rollouts = [&](int w) { return rollout_evaluators(t * config.workers + w); };
    }
    EvaluatorFactory opponent_rollouts;
    if (opponent_rollout_evaluators) {
      opponent_rollouts = [&](int w) {
        return opponent_rollout_evaluators(t * config.workers + w);
      };
    }
    auto player = SearchPlayer::Create(game, blueprint, config, mine, rollouts, opponent_rollouts);
    if (!player.ok()) return player.status();
    seats[t].player = *std::move(player);
    if (opponent == "self" && blueprint.is_model()) {
      seats[t].evaluator = evaluators(t * per_thread + config.workers);
      seats[t].client = traversal::PolicyClient::Direct(seats[t].evaluator.get());
      seats[t].opponent = std::make_unique<play::PolicyBot>(&seats[t].client, blueprint.play, game);
    } else {
      seats[t].opponent = *engine::MakeBot(opponent == "self" ? blueprint.bot : opponent);
    }
  }
  std::vector<engine::GameOutcome> outcomes(games);
  std::mutex mutex;
  int done = 0;
  RunOnThreads(threads, [&](int t) {
    const int begin = static_cast<int>(static_cast<int64_t>(games) * t / threads);
    const int end = static_cast<int>(static_cast<int64_t>(games) * (t + 1) / threads);
    for (int g = begin; g < end; ++g) {
      outcomes[g] = engine::PlayMatchGame(game, *seats[t].player, *seats[t].opponent, g, seed);
      std::lock_guard<std::mutex> lock(mutex);
      ++done;
      if (progress) progress(done);
    }
  });
  SearchMatchResult result;
  for (int g = 0; g < games; ++g) result.match.Add(outcomes[g], engine::SeatOfA(g));
  for (const Seat& seat : seats) result.search.Merge(seat.player->stats());
  return result;
}

}  // namespace lcfr::training
