#include "search/player.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "base/check.h"
#include "base/rng.h"
#include "base/strings.h"
#include "base/threads.h"
#include "play/policy_bot.h"
#include "search/experimental/belief.h"
#include "search/experimental/oracles.h"
#include "search/experimental/racing.h"
#include "search/experimental/value_cut.h"
#include "search/resampling.h"
#include "search/streams.h"

namespace lcfr::search {
namespace {

// A side of the rollouts named in the config: "" = the blueprint, "model" = the model with the
// blueprint's play policy, a play policy's name (the model with it), or a bot.
RolloutSide SideOf(const std::string& name, const Blueprint& blueprint) {
  RolloutSide r;
  r.play = blueprint.play;
  r.bot = name.empty() ? blueprint.bot : NamesModel(name) ? "" : name;
  if (auto play = play::PlayPolicy::Parse(name); play.ok()) r.play = *play;
  return r;
}

}  // namespace

SearchPlayer::SearchPlayer(const engine::LostCities& game, const Blueprint& blueprint,
                           const SearchConfig& config)
    : game_(game), blueprint_(blueprint), config_(config) {}

SearchPlayer::~SearchPlayer() = default;

absl::StatusOr<std::unique_ptr<SearchPlayer>> SearchPlayer::Create(
    const engine::LostCities& game, const Blueprint& blueprint, const SearchConfig& config,
    const traversal::EvaluatorFactory& evaluators,
    const traversal::EvaluatorFactory& rollout_evaluators) {
  if (absl::Status status = config.Validate(); !status.ok()) return status;
  std::unique_ptr<SearchPlayer> player(new SearchPlayer(game, blueprint, config));
  if (!blueprint.is_model()) {
    auto bot = play::MakeBot(blueprint.bot);
    if (!bot.ok()) return bot.status();
    player->blueprint_bot_ = *std::move(bot);
  }
  player->self_ = SideOf(config.rollout_policy, blueprint);
  for (const std::string& name : config.opponent_policies()) {
    player->opponents_.push_back(SideOf(name, blueprint));
  }
  const RolloutSide* opponent_model = nullptr;  // the first opponent policy on the model
  for (const RolloutSide& r : player->opponents_) {
    if (r.bot.empty() && opponent_model == nullptr) opponent_model = &r;
  }
  const bool rollout_model = player->self_.bot.empty() || opponent_model != nullptr;
  if (config.rollout_depth > 0 &&
      (!blueprint.is_model() || blueprint.value == Blueprint::Value::kNone)) {
    return absl::InvalidArgumentError(
        "--rollout-depth needs a model with a value network (trained with scheme value or "
        "escher)");
  }
  // The belief weighs the opponent's moves under the model: the blueprint's policy, else the
  // opponent's rollout side's (its first on the model), else the searching side's.
  std::optional<play::PlayPolicy> belief_play;
  if (config.belief > 0) {
    if (blueprint.is_model()) {
      belief_play = blueprint.play;
    } else if (opponent_model != nullptr) {
      belief_play = opponent_model->play;
    } else if (player->self_.bot.empty()) {
      belief_play = player->self_.play;
    } else {
      return absl::InvalidArgumentError(
          "--belief needs a model: the opponent's moves are weighed under the model's policy");
    }
  }
  const bool needs_model = blueprint.is_model() || rollout_model || belief_play.has_value();
  if (needs_model && !evaluators) {
    const char* flag = blueprint.is_model()        ? "the player (a model)"
                       : player->self_.bot.empty() ? "--rollout-policy"
                       : opponent_model != nullptr ? "--opponent-rollout-policy"
                                                   : "--belief";
    return absl::InvalidArgumentError(
        StrCat(flag, " needs a model, but the player is ",
               blueprint.is_model() ? std::string("given no networks")
                                    : StrCat("the bot '", blueprint.bot, "'"),
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
  player->workers_ = std::make_unique<Workers>(
      config.workers, config.width, needs_model ? evaluators : traversal::EvaluatorFactory{},
      rollout_evaluators, player->self_, player->opponents_);
  if (player->opponents_.size() > 1) {
    player->inference_ =
        std::make_unique<OpponentInference>(game, player->opponents_, config.opponent_worlds);
  }
  // The steps (search/steps.h; the experimental ones in search/experimental/).
  if (belief_play.has_value()) {
    player->worlds_ = std::make_unique<BeliefWorlds>(
        *belief_play, config.belief, config.belief_power, config.allocation == Allocation::kRacing);
  } else if (config.oracle_deck) {
    player->worlds_ = std::make_unique<OracleDeckWorlds>();
  } else if (config.oracle_hand) {
    player->worlds_ = std::make_unique<OracleHandWorlds>();
  }
  if (config.allocation == Allocation::kRacing) {
    player->allocator_ = std::make_unique<RacingAllocator>(config.drop_threshold);
  } else {
    player->allocator_ = std::make_unique<UniformAllocator>();
  }
  if (config.rollout_depth > 0) {
    player->leaf_ = std::make_unique<ValueCut>(game, blueprint, config.rollout_depth);
  }
  return player;
}

std::string SearchPlayer::Name() const { return StrCat("search over ", blueprint_.Name()); }

std::vector<engine::SeenMove>& SearchPlayer::Record(int seat, const engine::State& state) {
  // A game's first decision has no past: the record of the game before it goes.
  if (state.decisions == 0) seen_[seat].clear();
  return seen_[seat];
}

void SearchPlayer::Observe(const engine::LostCities& game, const engine::State& before, int action,
                           int seat) {
  if (seat < 0 || seat > 1) return;
  std::vector<engine::SeenMove>& seen = Record(seat, before);
  // A record that missed a move stays short, and the past is unknown for the rest of the game.
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

int SearchPlayer::Act(const engine::LostCities&, const engine::View&, Rng&) {
  LCFR_CHECK(false) << "SearchPlayer needs the state (the discard piles' order): call ActOnState";
  return -1;
}

int SearchPlayer::BlueprintChoice(const engine::State& state, Rng& rng,
                                  std::vector<float>& probabilities) {
  probabilities.clear();
  if (blueprint_bot_) return blueprint_bot_->ActOnState(game_, state, rng);
  traversal::PolicyClient direct =
      traversal::PolicyClient::Direct(workers_->front().evaluator.get());
  play::PolicyBot root(&direct, blueprint_.play, game_);
  const int action = root.ActOnState(game_, state, rng);
  probabilities.assign(root.probabilities().begin(), root.probabilities().end());
  return action;
}

std::vector<int> SearchPlayer::Candidates(const engine::State& state, int b,
                                          const std::vector<float>& probabilities) const {
  std::vector<int> candidates;
  for (uint32_t m = game_.LegalMask(state); m; m &= m - 1) {
    candidates.push_back(std::countr_zero(m));
  }
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
  return candidates;
}

double SearchPlayer::Rollout(const engine::State& world, int action, uint64_t stream, int opponent,
                             Clock::time_point deadline, traversal::PolicyClient& policy,
                             Workers::Worker& worker, char& cut) {
  Rng rng(stream);
  engine::State t = world;
  const int mover = engine::LostCities::CurrentPlayer(t);
  game_.ApplyUnchecked(t, action);
  // bots[p]: who plays seat p (the mover's seat: self_, the other: opponents_[opponent]).
  std::unique_ptr<play::PolicyBot> models[2];
  play::Bot* bots[2];
  for (int side = 0; side < 2; ++side) {
    play::Bot*& bot = bots[side == 0 ? mover : 1 - mover];
    bot = side == 0 ? worker.self_bot.get() : worker.opponent_bots[opponent].get();
    if (bot == nullptr) {
      const RolloutSide& r = side == 0 ? self_ : opponents_[opponent];
      models[side] = std::make_unique<play::PolicyBot>(&policy, r.play, game_);
      bot = models[side].get();
    }
  }
  cut = 0;
  const bool timed = deadline != kNoDeadline;
  const int depth = leaf_ ? leaf_->depth() : 0;
  for (int steps = 0; !engine::LostCities::IsTerminal(t); ++steps) {
    // Past the deadline a rollout stops where it is and counts as not played: the decision then
    // ends within one batch of its budget.
    if (timed && Clock::now() >= deadline) return std::numeric_limits<double>::quiet_NaN();
    if (steps == depth && steps > 0) {
      cut = 1;
      return leaf_->Value(t, mover, policy);
    }
    const int a = bots[engine::LostCities::CurrentPlayer(t)]->ActOnState(game_, t, rng);
    LCFR_CHECK((game_.LegalMask(t) >> a) & 1) << "the rollout policy chose illegal action " << a;
    game_.ApplyUnchecked(t, a);
  }
  return engine::LostCities::Payoff(t, mover) / engine::LostCities::DefaultPayoffScale();
}

RoundResults SearchPlayer::RunRounds(const engine::State& state, uint64_t seed,
                                     const std::vector<int>& candidates, int kb,
                                     Clock::time_point start, std::vector<int>& active) {
  const int count = static_cast<int>(candidates.size());
  const bool timed = config_.move_time_ms > 0;
  const Clock::time_point deadline =
      timed ? start + std::chrono::milliseconds(config_.move_time_ms) : kNoDeadline;
  // The worlds of opponent inference and the belief may take half of a time budget; the
  // rollouts have the rest (and whatever those leave).
  Decision decision;
  decision.game = &game_;
  decision.state = &state;
  decision.seed = seed;
  decision.planned = allocator_->PlannedRounds(config_.rollouts, count);
  decision.worlds_deadline =
      timed ? start + std::chrono::microseconds(500 * static_cast<int64_t>(config_.move_time_ms))
            : kNoDeadline;
  decision.seen = &Record(state.player, state);
  decision.knows_past = KnowsPast(state, *decision.seen);
  decision.report = &report_;
  decision.last = &last_;
  // 3. The worlds, and the opponent's policy of each round: inferred from its moves when there
  // are several, drawn from the posterior block by block (search/resampling.h) as rounds run.
  uniform_worlds_.Prepare(decision, *workers_);
  WorldSource* worlds = &uniform_worlds_;
  if (worlds_ != nullptr && worlds_->Prepare(decision, *workers_)) worlds = worlds_.get();
  std::vector<double> posterior(opponents_.size(), 1.0 / static_cast<double>(opponents_.size()));
  if (inference_ != nullptr) {
    inference_->Infer(state, *decision.seen, decision.knows_past, seed, decision.worlds_deadline,
                      *workers_, posterior, report_);
    last_.opponent_posterior = posterior;
  }
  std::vector<double> cumulative(posterior.size());
  double sum = 0;
  for (size_t t = 0; t < posterior.size(); ++t) cumulative[t] = sum += posterior[t];
  BlockPicks opponent_of(std::move(cumulative), 1.0, decision.planned,
                         DeriveSeed({seed, kOpponentStream, ~uint64_t{0}}),
                         BlockPicks::Order::kShuffled);
  // 4. The rounds, phase by phase as the allocation plans them: task j of a phase is round
  // first + j / |active|, candidate active[j % |active|]; rollout (r, k) depends on the seed, r
  // and k alone.
  RoundResults results(count, config_.objective);
  auto rollout = [&](int r, int k, traversal::PolicyClient& policy, Workers::Worker& worker) {
    if (timed && Clock::now() >= deadline) return;
    Rng world_rng(DeriveSeed({seed, kWorldStream, static_cast<uint64_t>(r)}));
    const engine::State world = worlds->World(r, world_rng);
    const int opponent = opponents_.size() > 1 ? opponent_of[r] : 0;
    results.payoff(r, k) =
        Rollout(world, candidates[k], DeriveSeed({seed, kRolloutStream, static_cast<uint64_t>(r)}),
                opponent, deadline, policy, worker, results.cut(r, k));
  };
  active.resize(count);
  for (int k = 0; k < count; ++k) active[k] = k;
  int first = 0;                 // the phase's first round
  int64_t planned_rollouts = 0;  // the rollouts of the phases so far
  for (int p = 0;; ++p) {
    const int in_phase = static_cast<int>(active.size());
    const int phase_rounds =
        allocator_->PhaseRounds(p, in_phase, planned_rollouts, config_.rollouts, count);
    if (phase_rounds < 1) break;
    const int64_t tasks = static_cast<int64_t>(phase_rounds) * in_phase;
    // Untimed, one run of the phase's tasks; timed, runs of about 4 x width tasks per worker
    // (whole rounds), the clock read between them. The results and the plan grow with the rounds
    // about to run, never while rollouts run.
    const int threads = static_cast<int>(std::min<int64_t>(workers_->size(), tasks));
    int64_t chunk = tasks;
    if (timed) {
      const int64_t per_chunk = 4 * static_cast<int64_t>(config_.width) * threads;
      chunk = std::max<int64_t>(1, per_chunk / in_phase) * in_phase;
    }
    int sized = first;
    for (int64_t begin = 0; begin < tasks; begin += chunk) {
      if (timed && Clock::now() >= deadline) break;
      const int64_t n = std::min(tasks - begin, chunk);
      sized = first + static_cast<int>((begin + n + in_phase - 1) / in_phase);
      results.Resize(sized);
      opponent_of.Extend(sized);
      worlds->Extend(sized);
      workers_->RunRollouts(
          threads, begin, n, [&](int64_t j, traversal::PolicyClient& policy, Workers::Worker& w) {
            rollout(first + static_cast<int>(j / in_phase), active[j % in_phase], policy, w);
          });
    }
    first = sized;
    planned_rollouts += tasks;
    if (timed && Clock::now() >= deadline) break;
    if (allocator_->AfterPhase(results, first, kb, config_.threshold, active)) break;
  }
  return results;
}

int SearchPlayer::Choose(const RoundResults& results, const std::vector<int>& candidates,
                         const std::vector<int>& active, int kb) {
  const int count = static_cast<int>(candidates.size());
  const int rounds = results.rounds();
  // The complete rounds of the last phase's candidates; a candidate that dropped out is reported
  // over the rounds it played beside b.
  std::vector<int> complete;
  for (int r = 0; r < rounds; ++r) {
    bool all = true;
    for (int k : active) all = all && !std::isnan(results.Value(r, k));
    if (all) complete.push_back(r);
  }
  const int n = static_cast<int>(complete.size());
  last_.rounds = n;
  last_.rollouts = results.played();
  last_.mean.assign(count, 0.0);
  last_.stderr_d.assign(count, 0.0);
  last_.played.assign(count, 0);
  for (int k = 0; k < count; ++k) {
    std::vector<int> played;
    if (std::binary_search(active.begin(), active.end(), k)) {
      played = complete;
    } else {
      for (int r = 0; r < rounds; ++r) {
        if (!std::isnan(results.Value(r, k)) && !std::isnan(results.Value(r, kb))) {
          played.push_back(r);
        }
      }
    }
    const int m = static_cast<int>(played.size());
    double sum = 0, sum_d = 0, sum_d2 = 0;
    for (int r : played) {
      const double v = results.Value(r, k);
      const double d = v - results.Value(r, kb);
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
  if (best == kb) return candidates[kb];
  // a* replaces b when it beats b's mean by more than `threshold` standard errors. A gain within
  // float rounding (equal network estimates, summed in another order) is no gain: payoffs move
  // in steps of 0.01.
  constexpr double kRounding = 1e-6;
  const double gain = last_.mean[best] - last_.mean[kb];
  const double se = last_.stderr_d[best];
  const bool beyond =
      gain > kRounding && (std::isinf(se) ? config_.threshold == 0 : gain > config_.threshold * se);
  return beyond ? candidates[best] : candidates[kb];
}

int SearchPlayer::ActOnState(const engine::LostCities& game, const engine::State& state, Rng& rng) {
  LCFR_CHECK(game.rules() == game_.rules()) << "the search was built for other rules";
  const Clock::time_point start = Clock::now();
  const uint64_t seed = rng.Next();
  last_ = SearchDecision{};
  ++report_.decisions;
  // 1. The blueprint's choice b.
  Rng own(DeriveSeed({seed, kBlueprintStream}));
  std::vector<float> probabilities;
  const int b = BlueprintChoice(state, own, probabilities);
  // 2. The candidates; a single one is played at once.
  const std::vector<int> candidates = Candidates(state, b, probabilities);
  last_.candidates = candidates;
  last_.blueprint = b;
  const int count = static_cast<int>(candidates.size());
  const int kb =
      static_cast<int>(std::find(candidates.begin(), candidates.end(), b) - candidates.begin());
  if (count == 1) {
    last_.chosen = b;
    last_.mean.assign(1, 0.0);
    last_.stderr_d.assign(1, 0.0);
    return b;
  }
  int64_t calls_before = 0, batches_before = 0;
  workers_->CountCalls(calls_before, batches_before);
  // 3, 4. The worlds, the opponent and the rounds.
  std::vector<int> active;
  const RoundResults results = RunRounds(state, seed, candidates, kb, start, active);
  int64_t calls_after = 0, batches_after = 0;
  workers_->CountCalls(calls_after, batches_after);
  // 5. The means and the choice.
  const int chosen = Choose(results, candidates, active, kb);
  last_.chosen = chosen;
  last_.win_objective = config_.objective == Objective::kWin;
  last_.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  report_.policy_calls += calls_after - calls_before;
  report_.batches += batches_after - batches_before;
  report_.cut += results.cuts();
  ++report_.searched;
  report_.deviations += chosen != b;
  if (state.phase == engine::Phase::kCard) {
    ++report_.card_searched;
    report_.card_deviations += chosen != b;
  }
  report_.win_objective += last_.win_objective;
  report_.rollouts += last_.rollouts;
  report_.rounds += last_.rounds;
  report_.seconds += last_.seconds;
  report_.max_seconds = std::max(report_.max_seconds, last_.seconds);
  return chosen;
}

}  // namespace lcfr::search
