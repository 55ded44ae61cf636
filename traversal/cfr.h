// Deep CFR traversals (Brown et al., 2019, "Deep Counterfactual Regret Minimization"), generic
// over the Game concept, with three sampling schemes for the traverser's own decisions:
//
// - kExternal: external sampling (Lanctot et al., 2009), the Deep CFR paper's scheme: every
//   legal traverser action is expanded. Exact in expectation and feasible for small games.
// - kOutcome: outcome sampling (Lanctot et al., 2009): one traverser action sampled from
//   q = epsilon * uniform + (1 - epsilon) * sigma. The child's value is importance-weighted,
//   v~(a) = [a = a*] v(a*) / q(a*), and the regret target is the baseline-subtracted
//   r~(a) = v~(a) - sum_b sigma(b) v~(b): unsampled actions get minus the node value, not 0
//   (the earlier engine's bias). Unbiased for every epsilon > 0.
// - kHybrid: for the traverser's first `hybrid_depth` decisions expand every legal action (or
//   `hybrid_actions` of them drawn uniformly without replacement, each value scaled by
//   n_legal / k, which keeps it unbiased); beyond that depth sample one action from
//   q = hybrid_epsilon * uniform + (1 - hybrid_epsilon) * sigma and return the importance-
//   weighted value sigma(a*) v(a*) / q(a*), unbiased for any hybrid_epsilon >= 0. Advantage
//   samples are recorded only in the expanded region, where the per-action regret estimate has
//   bounded weights; the sampled tail only estimates values.
// - kValue: the hybrid's tree walk, plus a learned action-value baseline (after ESCHER, McAleer
//   et al. 2023, and DREAM, Steinberger et al. 2020). It also records value samples: at an
//   expanded node, the sampled value of every expanded action; at a traverser decision of the
//   tail (each with probability value_sample_rate), the sampled value of the action taken. Both
//   are unbiased estimates of Q(I, a) = E[v(h.a) | I], the expected payoff of action a at the
//   traverser's infoset I when both players follow their current strategies (the histories h
//   of I weighted by chance and opponent reach: the traverser's own reach is the same for all
//   of them). The trainer fits the value network (kValueNetwork) to them. From iteration
//   value_from_iteration on, each such tail decision also records an advantage sample whose
//   target is the value network's r(a) = Q(I, a) - sum_b sigma(b) Q(I, b): no rollout noise,
//   and one sample per recorded tail decision instead of one per expanded node, at the price
//   of the value network's bias. These tail samples have weight 1, not the inverse of the
//   traverser's on-policy reach (which would explode over a long game): an infoset's samples
//   then weight each iteration's regret by the traverser's reach of it in that iteration. With
//   an exact value function the targets are exactly the counterfactual regrets divided by the
//   opponent and chance reach (tests check this on Leduc).
//
// Random starts (start_depth_max > 0), for the hybrid on long games: a traversal first plays a
// prefix of L decisions, L uniform in [0, start_depth_max], the traverser choosing uniformly
// among its legal actions and the other player on-policy; the scheme runs from where the
// prefix ends. Without it the hybrid's advantage samples cover only the first hybrid_depth
// traverser decisions of a game. Because the traverser's prefix policy is fixed (uniform, not
// its current strategy), an infoset I's samples estimate c(I) * (counterfactual regret) with
// c(I) = sum over prefixes of P(L) * (uniform probability of the traverser's prefix actions)
// (over the prefixes that end within hybrid_depth traverser decisions of I, for the hybrid):
// a constant per infoset, the same in every iteration, which regret matching does not see. So
// the summed regrets stay those of CFR, infoset by infoset (tests check c(I) exactly).
//
// In every scheme the other player samples its action from its current regret-matching
// strategy (its advantage network) and a strategy sample (features, sigma) is recorded there
// (with probability strategy_sample_rate);
// chance is sampled once at the root by Game::Deal. Payoffs are divided by the payoff scale
// (CfrConfig::payoff_scale, default Game::DefaultPayoffScale()): targets are in those units.
//
// - kEscher: ESCHER (McAleer, Farina, Lanctot & Sandholm, ICLR 2023), in EscherTraversal below:
//   one trajectory per traversal, the traverser following a fixed sampling policy xi
//   (sampling_policy: uniform, or balanced over the game's action classes), the other player its
//   current strategy. At every traverser decision one advantage sample for every legal action,
//   target Q(h, a) - sum_b sigma(b) Q(h, b) from a history value network (kValueNetwork on the
//   game's history encoding: both players' private information, never future chance), weight 1.
//   Separate value traversals (traverser kValueTraversal) play both players on policy and record
//   the value network's training samples, after a random prefix (start_depth_max) in which one
//   player follows the sampling policy. Why this is CFR is argued next to EscherTraversal.
//
// Sample weights (traversal/samples.h): a node reached through sampled traverser actions
// carries weight 1/q, q = the product over those actions of their sampling probability (q(a*)
// for one sampled action, k / n_legal for a k-subset). Then sum(weight * target) / traversals
// is an unbiased estimate of the counterfactual regret at every recorded infoset; tests check
// it against engine/exact.h on Kuhn and Leduc.
#ifndef LCFR_TRAVERSAL_CFR_H_
#define LCFR_TRAVERSAL_CFR_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/check.h"
#include "base/fields.h"
#include "base/rng.h"
#include "engine/game.h"
#include "traversal/cfr_config.h"
#include "traversal/evaluator.h"
#include "traversal/fiber_batcher.h"
#include "traversal/regret_matching.h"
#include "traversal/samples.h"
#include "traversal/stats.h"

namespace lcfr::traversal {

// An exploit run's target (training/exploit.h): the other player's decisions come from fixed
// networks, the network fixed_opponent.network[seat] with its head, instead of the mover's
// advantage network, and record no strategy samples (nothing learns the target's average).
// The external, outcome and hybrid schemes only (RunnerConfig::Validate).
struct FixedOpponent {
  std::array<int, 2> network{};       // the network the target plays seat p with
  Head head = Head::kRegretMatching;  // kRegretMatching (its current policy) or kSoftmax
};

// A fixed opponent that is not a network (a scripted bot): the action it plays at the mover's
// view, drawn from the traversal's random stream. Every traversal worker calls it from its own
// thread at once, so an implementation keeps any state per thread.
template <engine::Game G>
class ScriptedOpponent {
 public:
  virtual ~ScriptedOpponent() = default;
  virtual int Act(const G& game, const typename G::View& view, uint32_t legal, Rng& rng) const = 0;
};

// The schemes as policy types: what distinguishes them, each a compile-time choice of one
// CfrTraversal instantiation (RunTraversal picks it once per traversal).
struct ExternalScheme {
  static constexpr Scheme kScheme = Scheme::kExternal;
  // Every traverser decision is expanded.
  static bool Expands(const CfrConfig&, int) { return true; }
  static constexpr bool kSubsets = false;           // expands a k-subset when hybrid_actions > 0
  static constexpr bool kOutcomeAdvantage = false;  // records an advantage sample where it samples
  static constexpr bool kValues = false;            // records value samples (and tail advantages)
  static double Epsilon(const CfrConfig& c) { return c.hybrid_epsilon; }
};
struct OutcomeScheme {
  static constexpr Scheme kScheme = Scheme::kOutcome;
  static bool Expands(const CfrConfig&, int) { return false; }
  static constexpr bool kSubsets = false;
  static constexpr bool kOutcomeAdvantage = true;
  static constexpr bool kValues = false;
  static double Epsilon(const CfrConfig& c) { return c.epsilon; }
};
struct HybridScheme {
  static constexpr Scheme kScheme = Scheme::kHybrid;
  static bool Expands(const CfrConfig& c, int depth) { return depth < c.hybrid_depth; }
  static constexpr bool kSubsets = true;
  static constexpr bool kOutcomeAdvantage = false;
  static constexpr bool kValues = false;
  static double Epsilon(const CfrConfig& c) { return c.hybrid_epsilon; }
};
struct ValueScheme : HybridScheme {
  static constexpr Scheme kScheme = Scheme::kValue;
  static constexpr bool kValues = true;
};
// ESCHER runs its own traversal class (EscherTraversal); these members only say what it records.
struct EscherScheme {
  static constexpr Scheme kScheme = Scheme::kEscher;
  static constexpr bool kValues = true;
};

// The sample kinds a scheme produces: the trainer keeps a memory for each.
PerKind<bool> SchemeSampleKinds(Scheme scheme);

// Calls fn(SchemePolicy{}) with the policy type of `scheme`.
template <typename Fn>
decltype(auto) VisitScheme(Scheme scheme, Fn&& fn) {
  switch (scheme) {
    case Scheme::kExternal:
      return fn(ExternalScheme{});
    case Scheme::kOutcome:
      return fn(OutcomeScheme{});
    case Scheme::kHybrid:
      return fn(HybridScheme{});
    case Scheme::kEscher:
      return fn(EscherScheme{});
    case Scheme::kValue:
      break;
  }
  return fn(ValueScheme{});
}

template <engine::Game G>
struct TraversalParams {
  const G* game;
  const CfrConfig* config;
  int traverser;  // 0 or 1; kValueTraversal for ESCHER's value traversals
  int iteration;
  int64_t index;  // traversal index within the iteration; stored in the samples
  const FixedOpponent* fixed_opponent = nullptr;  // null: both players learn
  // With fixed_opponent: plays the opponent's decisions instead of its networks.
  const ScriptedOpponent<G>* scripted_opponent = nullptr;
};

// What every traversal class holds: the game, the config, its identity in the iteration, its
// random stream, the policy it asks, its feature scratch and the sample buffers it appends to;
// and the steps they all take the same way (strategy samples, action draws). Shared by
// CfrTraversal and EscherTraversal.
template <engine::Game G>
class TraversalCore {
 public:
  using State = typename G::State;
  using Params = TraversalParams<G>;

 protected:
  // `features` is scratch of game.EncodingSize() floats, private to this traversal while it
  // runs. Samples are appended to `samples` (the kinds the scheme produces); counts go to
  // `stats`.
  TraversalCore(const Params& params, Rng rng, PolicyClient& policy, std::span<float> features,
                SampleSet& samples, WorkerStats& stats)
      : game_(*params.game),
        config_(*params.config),
        traverser_(params.traverser),
        iteration_(params.iteration),
        index_(params.index),
        fixed_opponent_(params.fixed_opponent),
        scripted_opponent_(params.scripted_opponent),
        num_actions_(params.game->num_actions()),
        inv_scale_(1.0 / (params.config->payoff_scale > 0 ? params.config->payoff_scale
                                                          : params.game->DefaultPayoffScale())),
        rng_(rng),
        policy_(policy),
        features_(features),
        advantage_(samples[SampleKind::kAdvantage]),
        strategy_(samples[SampleKind::kStrategy]),
        value_(samples[SampleKind::kValue]),
        stats_(stats) {
    LCFR_DCHECK_LE(num_actions_, 32);
    LCFR_DCHECK_EQ(features.size(), static_cast<size_t>(params.game->EncodingSize()));
  }

  // Takes the mover's view of `s` into view_ and its encoding into features_ (what the next
  // samples record, until the next node's call).
  void EncodeView(const State& s) {
    game_.MoverView(s, view_);
    game_.Encode(view_, features_);
  }

  // Writes the policy of `player` at the encoded view into `out`: a fixed opponent's (its
  // scripted action, or its network's policy) when one plays `player` (not the traverser), else
  // the player's advantage network's regret matching (its current strategy).
  void PolicyOf(int player, uint32_t legal, std::span<float> out) {
    if (scripted_opponent_ != nullptr && player != traverser_) {
      std::fill(out.begin(), out.end(), 0.0f);
      const int action = scripted_opponent_->Act(game_, view_, legal, rng_);
      LCFR_CHECK(action >= 0 && action < num_actions_ && (legal >> action & 1u))
          << "the scripted opponent played an illegal action " << action;
      out[action] = 1.0f;
    } else if (fixed_opponent_ != nullptr && player != traverser_) {
      policy_.Evaluate(fixed_opponent_->network[player], fixed_opponent_->head, features_, legal,
                       out);
    } else {
      policy_.Evaluate(AdvantageNetwork(player), Head::kRegretMatching, features_, legal, out);
    }
  }

  // With probability strategy_sample_rate, records `strategy` at the encoded view (features_,
  // view_) as a strategy sample of `player`, weighted weight / rate. Nothing against a fixed
  // opponent.
  void RecordStrategy(int player, uint32_t legal, std::span<const float> strategy, double weight) {
    if (fixed_opponent_ != nullptr) return;
    const double rate = config_.strategy_sample_rate;
    if (rate < 1.0 && rng_.UniformDouble() >= rate) return;
    const size_t i = strategy_.Add(features_, ViewBytes(view_), legal,
                                   static_cast<float>(weight / rate), iteration_, player, index_);
    std::copy(strategy.begin(), strategy.end(), strategy_.target(i).begin());
    ++stats_.strategy_samples;
  }

  // Draws an action from epsilon * uniform(legal) + (1 - epsilon) * probabilities.
  int Sample(const std::array<float, 32>& probabilities, uint32_t legal, double epsilon) {
    const int action = SampleAction(std::span<const float>(probabilities.data(), num_actions_),
                                    legal, epsilon, rng_.UniformDouble());
    LCFR_CHECK_GE(action, 0) << "the evaluator returned no probability on a legal action";
    return action;
  }

  const G& game_;
  const CfrConfig& config_;
  const int traverser_;
  const int iteration_;
  const int64_t index_;
  const FixedOpponent* const fixed_opponent_;
  const ScriptedOpponent<G>* const scripted_opponent_;
  const int num_actions_;
  const double inv_scale_;
  Rng rng_;
  PolicyClient& policy_;
  std::span<float> features_;
  typename G::View view_{};
  SampleBuffer& advantage_;
  SampleBuffer& strategy_;
  SampleBuffer& value_;
  WorkerStats& stats_;
};

// The members the traversal classes take from TraversalCore (a dependent base: named here once).
#define LCFR_TRAVERSAL_CORE_MEMBERS(Base) \
  using Base::game_;                      \
  using Base::config_;                    \
  using Base::traverser_;                 \
  using Base::iteration_;                 \
  using Base::index_;                     \
  using Base::num_actions_;               \
  using Base::inv_scale_;                 \
  using Base::rng_;                       \
  using Base::policy_;                    \
  using Base::features_;                  \
  using Base::view_;                      \
  using Base::advantage_;                 \
  using Base::strategy_;                  \
  using Base::value_;                     \
  using Base::stats_;                     \
  using Base::EncodeView;                 \
  using Base::PolicyOf;                   \
  using Base::RecordStrategy;             \
  using Base::Sample

// One traversal: deals, walks the tree for `traverser`, records samples. Runs on a fiber or on
// the worker thread (PolicyClient decides); allocation-free except for sample storage.
template <engine::Game G, typename S>
class CfrTraversal : private TraversalCore<G> {
  using Core = TraversalCore<G>;
  LCFR_TRAVERSAL_CORE_MEMBERS(Core);

 public:
  using State = typename G::State;
  using Params = TraversalParams<G>;

  // As TraversalCore's. Precondition: params.config->scheme == S::kScheme.
  CfrTraversal(const Params& params, Rng rng, PolicyClient& policy, std::span<float> features,
               SampleSet& samples, WorkerStats& stats)
      : Core(params, rng, policy, features, samples, stats) {
    LCFR_DCHECK(params.config->scheme == S::kScheme);
  }

  // Returns the traverser's sampled value of the deal (in scaled payoff units).
  double Run() {
    State state = game_.Deal(rng_);
    if (config_.start_depth_max > 0) {
      const int length =
          static_cast<int>(rng_.Uniform(static_cast<uint32_t>(config_.start_depth_max) + 1));
      for (int step = 0; step < length && !game_.IsTerminal(state); ++step) PlayPrefix(state);
    }
    return Recurse(state, 0, 1.0);
  }

 private:
  int path_ = 0;  // decisions from the traversal's start (after the prefix) to the current node

  // One decision of the random-start prefix: the traverser uniformly, the other player from its
  // strategy (recording a strategy sample, as in the traversal proper).
  void PlayPrefix(State& s) {
    ++stats_.nodes;
    const int player = game_.CurrentPlayer(s);
    const uint32_t legal = game_.LegalMask(s);
    int action;
    if (player == traverser_) {
      uint32_t m = legal;
      for (uint32_t k = rng_.Uniform(static_cast<uint32_t>(std::popcount(legal))); k > 0; --k) {
        m &= m - 1;
      }
      action = std::countr_zero(m);
    } else {
      EncodeView(s);
      std::array<float, 32> sigma;
      const std::span<float> strategy(sigma.data(), num_actions_);
      PolicyOf(player, legal, strategy);
      RecordStrategy(player, legal, strategy, 1.0);
      action = Sample(sigma, legal, 0.0);
    }
    game_.ApplyUnchecked(s, action);
  }

  // `depth`: traverser decisions above this node; `weight`: 1/q of the traverser's sampling.
  double Recurse(State& s, int depth, double weight) {
    ++stats_.nodes;
    if (game_.IsTerminal(s)) {
      if (game_.HitDecisionCap(s)) ++stats_.capped_leaves;
      return static_cast<double>(game_.Payoff(s, traverser_)) * inv_scale_;
    }
    const int player = game_.CurrentPlayer(s);
    const uint32_t legal = game_.LegalMask(s);
    EncodeView(s);
    std::array<float, 32> sigma;
    const std::span<float> strategy(sigma.data(), num_actions_);
    PolicyOf(player, legal, strategy);
    if constexpr (S::kValues) {
      if (config_.tail_cap > 0 && path_ >= config_.tail_cap) return CutValue(player, legal, sigma);
    }

    if (player != traverser_) {
      RecordStrategy(player, legal, strategy, weight);
      const int action = Sample(sigma, legal, 0.0);
      const auto undo = game_.ApplyUnchecked(s, action);
      ++path_;
      const double value = Recurse(s, depth, weight);
      --path_;
      game_.Undo(s, action, undo);
      return value;
    }
    return S::Expands(config_, depth) ? Expand(s, depth, weight, legal, sigma)
                                      : SampleOne(s, depth, weight, legal, sigma);
  }

  double Expand(State& s, int depth, double weight, uint32_t legal,
                const std::array<float, 32>& sigma) {
    // Choose the expanded set: all legal actions, or k of them uniformly without replacement.
    uint32_t chosen = legal;
    const int n_legal = std::popcount(legal);
    if (S::kSubsets && config_.hybrid_actions > 0 && config_.hybrid_actions < n_legal) {
      std::array<int, 32> actions;
      int n = 0;
      for (uint32_t m = legal; m; m &= m - 1) actions[n++] = std::countr_zero(m);
      chosen = 0;
      for (int i = 0; i < config_.hybrid_actions; ++i) {
        const int j = i + static_cast<int>(rng_.Uniform(static_cast<uint32_t>(n - i)));
        std::swap(actions[i], actions[j]);
        chosen |= 1u << actions[i];
      }
    }
    const double scale = static_cast<double>(n_legal) / std::popcount(chosen);
    const size_t i = advantage_.Add(features_, ViewBytes(view_), legal, static_cast<float>(weight),
                                    iteration_, traverser_, index_);
    ++stats_.advantage_samples;
    size_t iv = 0;
    if constexpr (S::kValues) {
      iv = value_.Add(features_, ViewBytes(view_), chosen, 1.0f, iteration_, traverser_, index_);
      ++stats_.value_samples;
    }
    std::array<double, 32> value{};
    const Rng branch_rng = rng_;
    for (uint32_t m = chosen; m; m &= m - 1) {
      const int a = std::countr_zero(m);
      if (config_.common_random_numbers) rng_ = branch_rng;
      const auto undo = game_.ApplyUnchecked(s, a);
      ++path_;
      const double child = Recurse(s, depth + 1, weight * scale);
      --path_;
      game_.Undo(s, a, undo);
      value[a] = scale * child;
      if constexpr (S::kValues) value_.target(iv)[a] = static_cast<float>(child);
    }
    double node = 0;
    for (uint32_t m = legal; m; m &= m - 1) {
      const int a = std::countr_zero(m);
      node += sigma[a] * value[a];
    }
    const std::span<float> target = advantage_.target(i);
    for (uint32_t m = legal; m; m &= m - 1) {
      const int a = std::countr_zero(m);
      target[a] = static_cast<float>(value[a] - node);
    }
    return node;
  }

  double SampleOne(State& s, int depth, double weight, uint32_t legal,
                   const std::array<float, 32>& sigma) {
    constexpr bool outcome = S::kOutcomeAdvantage;
    const double epsilon = S::Epsilon(config_);
    const int action = Sample(sigma, legal, epsilon);
    const double q = epsilon / std::popcount(legal) + (1 - epsilon) * sigma[action];
    size_t i = 0;
    if constexpr (outcome) {
      i = advantage_.Add(features_, ViewBytes(view_), legal, static_cast<float>(weight), iteration_,
                         traverser_, index_);
      ++stats_.advantage_samples;
    }
    const bool record_value = S::kValues && (config_.value_sample_rate >= 1.0 ||
                                             rng_.UniformDouble() < config_.value_sample_rate);
    size_t iv = 0;
    if (record_value) {
      if (iteration_ >= config_.value_from_iteration) RecordValueAdvantage(legal, sigma);
      iv = value_.Add(features_, ViewBytes(view_), 1u << action, 1.0f, iteration_, traverser_,
                      index_);
      ++stats_.value_samples;
    }
    const auto undo = game_.ApplyUnchecked(s, action);
    ++path_;
    const double sampled = Recurse(s, depth + 1, weight / q);
    --path_;
    game_.Undo(s, action, undo);
    if (record_value) value_.target(iv)[action] = static_cast<float>(sampled);
    const double child = sampled / q;  // v~(a*)
    const double node = sigma[action] * child;
    if constexpr (outcome) {
      const std::span<float> target = advantage_.target(i);
      for (uint32_t m = legal; m; m &= m - 1) {
        const int a = std::countr_zero(m);
        target[a] = static_cast<float>((a == action ? child : 0.0) - node);
      }
    }
    return node;
  }

  // The value scheme's leaf at tail_cap (features_ holds the mover's encoding, sigma its
  // strategy): the value network's sum_a sigma(a) Q(I, a), for the traverser.
  double CutValue(int player, uint32_t legal, const std::array<float, 32>& sigma) {
    ++stats_.capped_leaves;
    std::array<float, 32> q{};
    const double node = ValueNetworkQ(legal, sigma, q);
    return player == traverser_ ? node : -node;
  }

  // Writes the value network's Q(I, a) at the encoded view (features_) into q and returns
  // sum_a sigma(a) Q(I, a).
  double ValueNetworkQ(uint32_t legal, const std::array<float, 32>& sigma,
                       std::array<float, 32>& q) {
    policy_.Evaluate(kValueNetwork, Head::kRaw, features_, legal,
                     std::span<float>(q.data(), num_actions_));
    double node = 0;
    for (uint32_t m = legal; m; m &= m - 1) {
      const int a = std::countr_zero(m);
      node += sigma[a] * q[a];
    }
    return node;
  }

  // The value scheme's advantage sample at a tail decision (features_ holds its encoding):
  // r(a) = Q(I, a) - sum_b sigma(b) Q(I, b) from the value network, weight 1.
  void RecordValueAdvantage(uint32_t legal, const std::array<float, 32>& sigma) {
    std::array<float, 32> q{};
    const double node = ValueNetworkQ(legal, sigma, q);
    const size_t i =
        advantage_.Add(features_, ViewBytes(view_), legal, 1.0f, iteration_, traverser_, index_);
    ++stats_.advantage_samples;
    const std::span<float> target = advantage_.target(i);
    for (uint32_t m = legal; m; m &= m - 1) {
      const int a = std::countr_zero(m);
      target[a] = static_cast<float>(q[a] - node);
    }
  }
};

// ESCHER's fixed sampling policy xi at a decision of the mover of `view` with legal actions
// `legal`: writes its probabilities into `out` (num_actions floats). Uniform: 1/n on every legal
// action. Balanced: uniform over the action classes present (game.ActionClass), then uniform
// within the class. Full support, and a function of the mover's information state only, the same
// in every iteration: that is what makes ESCHER's targets CFR's regrets up to a per-infoset
// constant (EscherTraversal).
template <engine::Game G>
void FixedPolicy(const G& game, const typename G::View& view, uint32_t legal, SamplingPolicy policy,
                 std::span<float> out) {
  std::fill(out.begin(), out.end(), 0.0f);
  if (policy == SamplingPolicy::kUniform) {
    const float p = 1.0f / static_cast<float>(std::popcount(legal));
    for (uint32_t m = legal; m; m &= m - 1) out[std::countr_zero(m)] = p;
    return;
  }
  std::array<uint32_t, engine::kMaxActionClasses> members{};
  std::array<int, 32> class_of{};
  for (uint32_t m = legal; m; m &= m - 1) {
    const int a = std::countr_zero(m);
    const int c = static_cast<int>(game.ActionClass(view, a));
    LCFR_DCHECK(c >= 0 && c < engine::kMaxActionClasses);
    class_of[a] = c;
    members[c] |= 1u << a;
  }
  int classes = 0;
  for (uint32_t c : members) classes += c != 0;
  for (uint32_t m = legal; m; m &= m - 1) {
    const int a = std::countr_zero(m);
    out[a] = static_cast<float>(1.0 / (classes * std::popcount(members[class_of[a]])));
  }
}

// One ESCHER traversal (traverser 0 or 1: a regret traversal; kValueTraversal: a value
// traversal). Runs on a fiber like CfrTraversal; allocation-free except for sample storage.
//
// Why the regret targets are CFR's. Take an infoset I of the traverser i and an action a. A regret
// traversal reaches history h with probability pi_c(h) pi_-i^sigma(h) pi_i^xi(h): chance, the
// other player on its current strategy sigma^t, the traverser on the fixed xi. With perfect
// recall every h in I has the same sequence of the traverser's own actions and information
// states, and xi depends only on those, so pi_i^xi(h) = pi^xi(I) for every h in I. The target
// stored at h is Q(h, a) - sum_b sigma^t(b | I) Q(h, b), with Q the history action values under
// sigma^t. So the expected sum of the targets at I per traversal is
//   pi^xi(I) * sum_{h in I} pi_c(h) pi_-i(h) (Q(h, a) - sum_b sigma(b) Q(h, b))
//   = pi^xi(I) * r^t(I, a),
// the counterfactual regret times pi^xi(I) > 0 (xi has full support). pi^xi(I) depends on neither
// t nor sigma: summed over the iterations (with linear weights or not), each infoset's regrets
// are CFR's scaled by a positive constant of its own, and regret matching, which normalises the
// positive part per infoset, gives exactly CFR's strategy. (A sampling policy that changed with t,
// such as sigma^t itself, would scale each iteration differently: that is the value scheme's
// bias.) Tests check the identity exactly on Kuhn and Leduc with the exact Q of engine/exact.h.
// Q depends on future chance only through its expectation: the history encoding leaves out the
// deck order (Lost Cities) or the board card still to come (Leduc), and the value network
// learns the average over it, which is what the identity needs.
//
// Value traversals. Both players sample from q = value_epsilon * uniform + (1 - value_epsilon) *
// sigma; each decision (with probability value_sample_rate) records a value sample: the history
// encoding, the action taken in the mask, and as target the mover's return times the product of
// sigma / q over the decisions after it. That product corrects the later exploration: the target
// is an unbiased estimate of Q(h, a) under sigma^t for the action a taken at h, whichever way a
// was chosen, and exploration makes every legal action's value trained.
template <engine::Game G>
class EscherTraversal : private TraversalCore<G> {
  using Core = TraversalCore<G>;
  LCFR_TRAVERSAL_CORE_MEMBERS(Core);

 public:
  using State = typename G::State;
  using Params = TraversalParams<G>;

  EscherTraversal(const Params& params, Rng rng, PolicyClient& policy, std::span<float> features,
                  SampleSet& samples, WorkerStats& stats)
      : Core(params, rng, policy, features, samples, stats) {
    LCFR_DCHECK(params.config->scheme == Scheme::kEscher);
  }

  // A regret traversal returns the traverser's payoff of its trajectory, a value traversal
  // player 0's (scaled payoff units).
  double Run() {
    State state = game_.Deal(rng_);
    if (traverser_ == kValueTraversal) {
      // A prefix of L decisions, L uniform in [0, start_depth_max], with one player (by the
      // traversal's parity) on the fixed sampling policy and the other on its strategy: the
      // states where the value samples start are then distributed like those where the regret
      // traversals ask Q. No sample is recorded in the prefix; from its end both players follow
      // their strategies, so the returns still estimate Q under sigma.
      if (config_.start_depth_max > 0) {
        const int sampler = static_cast<int>(index_ % 2);
        const int length =
            static_cast<int>(rng_.Uniform(static_cast<uint32_t>(config_.start_depth_max) + 1));
        for (int step = 0; step < length && !game_.IsTerminal(state); ++step) {
          PlayPrefix(state, sampler);
        }
      }
      return ValueWalk(state).first;
    }
    return RegretWalk(state);
  }

 private:
  // One prefix decision of a value traversal: `sampler` on the fixed policy, the other player on
  // its strategy.
  void PlayPrefix(State& s, int sampler) {
    ++stats_.nodes;
    const int player = game_.CurrentPlayer(s);
    const uint32_t legal = game_.LegalMask(s);
    game_.MoverView(s, view_);
    std::array<float, 32> p{};
    if (player == sampler) {
      FixedPolicy(game_, view_, legal, config_.sampling_policy,
                  std::span<float>(p.data(), num_actions_));
    } else {
      game_.Encode(view_, features_);
      policy_.Evaluate(AdvantageNetwork(player), Head::kRegretMatching, features_, legal,
                       std::span<float>(p.data(), num_actions_));
    }
    game_.ApplyUnchecked(s, Sample(p, legal, 0.0));
  }

  double RegretWalk(State& s) {
    while (!game_.IsTerminal(s)) {
      ++stats_.nodes;
      const int player = game_.CurrentPlayer(s);
      const uint32_t legal = game_.LegalMask(s);
      game_.MoverView(s, view_);
      game_.Encode(view_, features_);
      std::array<float, 32> sigma;
      policy_.Evaluate(AdvantageNetwork(player), Head::kRegretMatching, features_, legal,
                       std::span<float>(sigma.data(), num_actions_));
      int action;
      if (player != traverser_) {
        RecordStrategy(player, legal, std::span<const float>(sigma.data(), num_actions_), 1.0);
        action = Sample(sigma, legal, 0.0);
      } else {
        const size_t i = advantage_.Add(features_, ViewBytes(view_), legal, 1.0f, iteration_,
                                        traverser_, index_);
        ++stats_.advantage_samples;
        game_.HistoryView(s, history_);
        game_.Encode(history_, features_);
        std::array<float, 32> q{};
        policy_.Evaluate(kValueNetwork, Head::kRaw, features_, legal,
                         std::span<float>(q.data(), num_actions_));
        double node = 0;
        for (uint32_t m = legal; m; m &= m - 1) {
          const int a = std::countr_zero(m);
          node += sigma[a] * q[a];
        }
        const std::span<float> target = advantage_.target(i);
        for (uint32_t m = legal; m; m &= m - 1) {
          const int a = std::countr_zero(m);
          target[a] = static_cast<float>(q[a] - node);
        }
        std::array<float, 32> xi;
        FixedPolicy(game_, view_, legal, config_.sampling_policy,
                    std::span<float>(xi.data(), num_actions_));
        action = Sample(xi, legal, 0.0);
      }
      game_.ApplyUnchecked(s, action);
    }
    ++stats_.nodes;
    if (game_.HitDecisionCap(s)) ++stats_.capped_leaves;
    return static_cast<double>(game_.Payoff(s, traverser_)) * inv_scale_;
  }

  // Returns player 0's payoff at the trajectory's end and the product of sigma / q over the
  // decisions from `s` on.
  std::pair<double, double> ValueWalk(State& s) {
    ++stats_.nodes;
    if (game_.IsTerminal(s)) {
      if (game_.HitDecisionCap(s)) ++stats_.capped_leaves;
      return {static_cast<double>(game_.Payoff(s, 0)) * inv_scale_, 1.0};
    }
    const int player = game_.CurrentPlayer(s);
    const uint32_t legal = game_.LegalMask(s);
    game_.MoverView(s, view_);
    game_.Encode(view_, features_);
    std::array<float, 32> sigma;
    policy_.Evaluate(AdvantageNetwork(player), Head::kRegretMatching, features_, legal,
                     std::span<float>(sigma.data(), num_actions_));
    const double epsilon = config_.value_epsilon;
    const int action = Sample(sigma, legal, epsilon);
    const double q = epsilon / std::popcount(legal) + (1 - epsilon) * sigma[action];
    const bool record =
        config_.value_sample_rate >= 1.0 || rng_.UniformDouble() < config_.value_sample_rate;
    size_t iv = 0;
    if (record) {
      game_.HistoryView(s, history_);
      game_.Encode(history_, features_);
      iv = value_.Add(features_, ViewBytes(history_), 1u << action, 1.0f, iteration_, player,
                      index_);
      ++stats_.value_samples;
    }
    game_.ApplyUnchecked(s, action);
    const auto [payoff0, ratio] = ValueWalk(s);
    if (record) {
      value_.target(iv)[action] = static_cast<float>((player == 0 ? payoff0 : -payoff0) * ratio);
    }
    return {payoff0, ratio * sigma[action] / q};
  }

  typename G::View history_{};
};

#undef LCFR_TRAVERSAL_CORE_MEMBERS

// Runs one traversal with the scheme policy of params.config->scheme; returns its value.
template <engine::Game G>
double RunTraversal(const TraversalParams<G>& params, Rng rng, PolicyClient& policy,
                    std::span<float> features, SampleSet& samples, WorkerStats& stats) {
  return VisitScheme(params.config->scheme, [&](auto scheme) {
    using S = decltype(scheme);
    if constexpr (std::is_same_v<S, EscherScheme>) {
      return EscherTraversal<G>(params, rng, policy, features, samples, stats).Run();
    } else {
      return CfrTraversal<G, S>(params, rng, policy, features, samples, stats).Run();
    }
  });
}

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_CFR_H_
