// Exact solvers for small games (EnumerableGame): expected payoffs, best responses,
// exploitability and counterfactual regrets of a policy, by walking the whole game tree.
// They are the ground truth the CFR traversals are checked against (tests/traversal).
//
// A policy maps a state to probabilities over the game's actions (0 at illegal actions); it is
// asked once per infoset, at a representative state, so it must depend only on what the player
// to move sees. Infosets are keyed by the player to move and the bytes of the game's encoding,
// which for the toy games identifies the infoset exactly.
//
// Conventions (as in OpenSpiel): NashConv = sum over players of (best-response value - value
// under the policy) = br_value[0] + br_value[1] in a zero-sum game; exploitability =
// NashConv / 2. All in the game's payoff units.
#ifndef LCFR_ENGINE_EXACT_H_
#define LCFR_ENGINE_EXACT_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/check.h"
#include "engine/game.h"

namespace lcfr::engine {

// The infoset key used by the exact solvers and the tabular evaluators: the player byte
// followed by the raw bytes of the encoding.
inline std::string InfosetKey(int player, std::span<const float> encoding) {
  std::string key(1 + encoding.size_bytes(), '\0');
  key[0] = static_cast<char>(player);
  std::memcpy(key.data() + 1, encoding.data(), encoding.size_bytes());
  return key;
}

struct ExploitabilityResult {
  std::array<double, 2> value{};     // each player's payoff under the policy
  std::array<double, 2> br_value{};  // each player's best-response payoff against the policy
  double nash_conv = 0;
  double exploitability = 0;  // nash_conv / 2
};

template <EnumerableGame G>
class ExactSolver {
 public:
  using State = typename G::State;
  using Policy = std::function<void(const State&, std::span<float>)>;

  struct Infoset {
    int player;
    uint32_t legal;
    std::string key;
    State representative;
    std::vector<int> nodes;
  };

  explicit ExactSolver(const G& game) : game_(game) {
    for (const WeightedDeal<State>& deal : game.AllDeals()) {
      State s = deal.state;
      const int root = static_cast<int>(nodes_.size());
      nodes_.emplace_back();
      Build(s, root, 0, deal.probability);
      roots_.push_back({root, deal.probability});
    }
  }

  const std::vector<Infoset>& infosets() const { return infosets_; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }

  // Both players' expected payoffs when both follow `policy`.
  std::array<double, 2> Values(const Policy& policy) const {
    const double v0 = Value0(Tabulate(policy));
    return {v0, -v0};
  }

  // `responder`'s payoff when it best-responds to the other player's part of `policy`.
  double BestResponseValue(const Policy& policy, int responder) const {
    const std::vector<float> sigma = Tabulate(policy);
    return BestResponse(sigma, responder);
  }

  ExploitabilityResult Exploitability(const Policy& policy) const {
    const std::vector<float> sigma = Tabulate(policy);
    ExploitabilityResult result;
    const double v0 = Value0(sigma);
    result.value = {v0, -v0};
    for (int p = 0; p < 2; ++p) result.br_value[p] = BestResponse(sigma, p);
    result.nash_conv = result.br_value[0] + result.br_value[1];
    result.exploitability = result.nash_conv / 2;
    return result;
  }

  // Per infoset of `player` under `policy`: reach = sum over histories h in I of pi_-i(h), the
  // chance and opponent reach; q[a] = sum_h pi_-i(h) v(h.a) / reach, the expected payoff of
  // action a given I (the action value a value network estimates), with v the player's expected
  // payoff under the policy. q is 0 at illegal actions, and wherever reach is 0.
  struct ActionValue {
    double reach = 0;
    std::vector<double> q;
  };
  std::unordered_map<std::string, ActionValue> ActionValues(const Policy& policy,
                                                            int player) const {
    const std::vector<float> sigma = Tabulate(policy);
    const std::vector<double> reach = OpponentReach(sigma, player);
    std::vector<double> memo(nodes_.size(), kUnset);
    std::unordered_map<std::string, ActionValue> values;
    const int n = game_.num_actions();
    for (const Infoset& infoset : infosets_) {
      if (infoset.player != player) continue;
      ActionValue& value = values[infoset.key];
      value.q.assign(n, 0.0);
      for (int node : infoset.nodes) {
        const Node& h = nodes_[node];
        value.reach += reach[node];
        int child = h.first_child;
        for (int a = 0; a < n; ++a) {
          if (!(h.legal >> a & 1)) continue;
          value.q[a] += reach[node] * OnPolicyValue(child++, player, sigma, memo);
        }
      }
      if (value.reach > 0) {
        for (double& q : value.q) q /= value.reach;
      } else {
        std::fill(value.q.begin(), value.q.end(), 0.0);
      }
    }
    return values;
  }

  // Per history key (InfosetKey of the mover and its history encoding, engine/game.h: both
  // players' private information, not future chance): q[a] = the mover's expected payoff of
  // action a when both players follow `policy` afterwards, averaged over the future chance the
  // key leaves out (weighted by chance; every history of a key has the same players' reach).
  // What ESCHER's history value network estimates. 0 at illegal actions.
  std::unordered_map<std::string, std::vector<double>> HistoryActionValues(
      const Policy& policy) const {
    const std::vector<float> sigma = Tabulate(policy);
    const int n = game_.num_actions();
    std::vector<double> memo0(nodes_.size(), kUnset);  // player 0's values
    std::vector<std::vector<double>> sums(history_keys_.size(), std::vector<double>(n, 0.0));
    std::vector<double> weights(history_keys_.size(), 0.0);
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node& h = nodes_[i];
      if (h.player < 0) continue;
      const double sign = h.player == 0 ? 1.0 : -1.0;
      weights[h.history] += h.chance;
      int child = h.first_child;
      for (int a = 0; a < n; ++a) {
        if (!(h.legal >> a & 1)) continue;
        sums[h.history][a] += h.chance * sign * OnPolicyValue(child++, 0, sigma, memo0);
      }
    }
    std::unordered_map<std::string, std::vector<double>> values;
    for (size_t k = 0; k < history_keys_.size(); ++k) {
      std::vector<double>& q = values[history_keys_[k]];
      q = sums[k];
      for (double& x : q) x /= weights[k];
    }
    return values;
  }

  // The reach of every infoset of `player` under that player's own policy `own` alone (chance
  // and the opponent left out), checked to be the same for every history of the infoset
  // (perfect recall; CHECK-fails otherwise). With ESCHER's fixed sampling policy as `own`, this
  // is the pi^xi(I) that scales its regret targets (traversal/cfr.h).
  std::unordered_map<std::string, double> OwnReach(const Policy& own, int player) const {
    const std::vector<float> sigma = Tabulate(own);
    const int n = game_.num_actions();
    std::vector<double> reach(nodes_.size(), 1.0);
    std::unordered_map<std::string, double> result;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node& h = nodes_[i];
      if (h.player < 0) continue;
      if (h.player == player) {
        const auto [it, inserted] = result.try_emplace(infosets_[h.infoset].key, reach[i]);
        LCFR_CHECK(inserted || std::abs(it->second - reach[i]) < 1e-12)
            << "an infoset's histories have different own reach";
      }
      int child = h.first_child;
      for (int a = 0; a < n; ++a) {
        if (!(h.legal >> a & 1)) continue;
        reach[child++] = reach[i] * (h.player == player ? sigma[h.infoset * n + a] : 1.0);
      }
    }
    return result;
  }

  // Counterfactual regrets of `player` under `policy`, per infoset key: r(I, a) = sum over
  // histories h in I of pi_-i(h) * (v(h.a) - v(h)) = reach * (q[a] - sum_b sigma(b) q[b]) in
  // ActionValues' terms. 0 at illegal actions.
  std::unordered_map<std::string, std::vector<double>> CounterfactualRegrets(const Policy& policy,
                                                                             int player) const {
    const std::vector<float> sigma = Tabulate(policy);
    std::unordered_map<std::string, std::vector<double>> regrets;
    const int n = game_.num_actions();
    const auto values = ActionValues(policy, player);
    for (size_t i = 0; i < infosets_.size(); ++i) {
      const Infoset& infoset = infosets_[i];
      if (infoset.player != player) continue;
      const ActionValue& value = values.at(infoset.key);
      double node_value = 0;
      for (int a = 0; a < n; ++a) node_value += sigma[i * n + a] * value.q[a];
      std::vector<double>& r = regrets[infoset.key];
      r.assign(n, 0.0);
      for (int a = 0; a < n; ++a) {
        if (infoset.legal >> a & 1) r[a] = value.reach * (value.q[a] - node_value);
      }
    }
    return regrets;
  }

 private:
  static constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();

  struct Node {
    int player = -1;   // -1 at a terminal
    int infoset = -1;  // index into infosets_
    uint32_t legal = 0;
    int first_child = -1;  // children of the legal actions, in increasing action order
    double payoff0 = 0;    // player 0's payoff at a terminal
    double chance = 0;     // the probability of the node's deal
    int history = -1;      // index into history_keys_ (not at a terminal)
  };
  struct Root {
    int node;
    double probability;
  };

  // Fills the node at `index` (already allocated) with the subtree below `s`.
  void Build(State& s, int index, int depth, double chance) {
    LCFR_CHECK_LE(depth, game_.MaxDecisions());
    nodes_[index].chance = chance;
    if (game_.IsTerminal(s)) {
      nodes_[index].payoff0 = game_.Payoff(s, 0);
      return;
    }
    const int player = game_.CurrentPlayer(s);
    const uint32_t legal = game_.LegalMask(s);
    LCFR_CHECK_NE(legal, 0u);
    encoding_.resize(game_.EncodingSize());
    game_.Encode(s, encoding_);
    std::string key = InfosetKey(player, encoding_);
    auto [it, inserted] = infoset_index_.try_emplace(key, static_cast<int>(infosets_.size()));
    if (inserted) infosets_.push_back({player, legal, std::move(key), s, {}});
    Infoset& infoset = infosets_[it->second];
    LCFR_CHECK_EQ(infoset.legal, legal);
    infoset.nodes.push_back(index);
    typename G::View history;
    game_.HistoryView(s, history);
    game_.Encode(history, encoding_);
    const auto [hit, hinserted] = history_index_.try_emplace(
        InfosetKey(player, encoding_), static_cast<int>(history_keys_.size()));
    if (hinserted) history_keys_.push_back(hit->first);
    nodes_[index].history = hit->second;
    // Children get contiguous slots after every node built so far: parents precede children.
    const int first = static_cast<int>(nodes_.size());
    nodes_.resize(nodes_.size() + std::popcount(legal));
    nodes_[index].player = player;
    nodes_[index].infoset = it->second;
    nodes_[index].legal = legal;
    nodes_[index].first_child = first;
    int slot = first;
    for (int a = 0; a < game_.num_actions(); ++a) {
      if (!(legal >> a & 1)) continue;
      const auto undo = game_.ApplyUnchecked(s, a);
      Build(s, slot++, depth + 1, chance);
      game_.Undo(s, a, undo);
    }
  }

  std::vector<float> Tabulate(const Policy& policy) const {
    const int n = game_.num_actions();
    std::vector<float> sigma(infosets_.size() * n, 0.0f);
    for (size_t i = 0; i < infosets_.size(); ++i) {
      std::span<float> probs(sigma.data() + i * n, n);
      policy(infosets_[i].representative, probs);
      double total = 0;
      for (int a = 0; a < n; ++a) {
        LCFR_CHECK(probs[a] >= 0.0f);
        if (!(infosets_[i].legal >> a & 1)) LCFR_CHECK_EQ(probs[a], 0.0f);
        total += probs[a];
      }
      LCFR_CHECK(std::abs(total - 1.0) < 1e-4);
    }
    return sigma;
  }

  // Player 0's expected payoff over all deals when both players follow sigma.
  double Value0(const std::vector<float>& sigma) const {
    std::vector<double> memo(nodes_.size(), kUnset);
    double v0 = 0;
    for (const Root& root : roots_) {
      v0 += root.probability * OnPolicyValue(root.node, 0, sigma, memo);
    }
    return v0;
  }

  // Expected payoff of `player` below `node` when both players follow sigma.
  double OnPolicyValue(int node, int player, const std::vector<float>& sigma,
                       std::vector<double>& memo) const {
    if (!std::isnan(memo[node])) return memo[node];
    const Node& h = nodes_[node];
    double value = 0;
    if (h.player < 0) {
      value = player == 0 ? h.payoff0 : -h.payoff0;
    } else {
      const int n = game_.num_actions();
      int child = h.first_child;
      for (int a = 0; a < n; ++a) {
        if (!(h.legal >> a & 1)) continue;
        value += sigma[h.infoset * n + a] * OnPolicyValue(child++, player, sigma, memo);
      }
    }
    return memo[node] = value;
  }

  // Chance times opponent reach of every node, for `player`.
  std::vector<double> OpponentReach(const std::vector<float>& sigma, int player) const {
    std::vector<double> reach(nodes_.size(), 0.0);
    const int n = game_.num_actions();
    for (const Root& root : roots_) reach[root.node] = root.probability;
    // Parents precede their children in nodes_, so one forward pass propagates reach.
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node& h = nodes_[i];
      if (h.player < 0) continue;
      int child = h.first_child;
      for (int a = 0; a < n; ++a) {
        if (!(h.legal >> a & 1)) continue;
        reach[child++] = reach[i] * (h.player == player ? 1.0 : sigma[h.infoset * n + a]);
      }
    }
    return reach;
  }

  double BestResponse(const std::vector<float>& sigma, int responder) const {
    BrState br{OpponentReach(sigma, responder), std::vector<double>(nodes_.size(), kUnset),
               std::vector<int>(infosets_.size(), -1)};
    double total = 0;
    for (const Root& root : roots_)
      total += root.probability * BrValue(root.node, responder, sigma, br);
    return total;
  }

  struct BrState {
    std::vector<double> reach;
    std::vector<double> value;
    std::vector<int> action;  // per infoset, -1 until chosen
  };

  double BrValue(int node, int responder, const std::vector<float>& sigma, BrState& br) const {
    if (!std::isnan(br.value[node])) return br.value[node];
    const Node& h = nodes_[node];
    const int n = game_.num_actions();
    double value = 0;
    if (h.player < 0) {
      value = responder == 0 ? h.payoff0 : -h.payoff0;
    } else if (h.player != responder) {
      int child = h.first_child;
      for (int a = 0; a < n; ++a) {
        if (!(h.legal >> a & 1)) continue;
        value += sigma[h.infoset * n + a] * BrValue(child++, responder, sigma, br);
      }
    } else {
      value =
          BrValue(ChildOf(node, BrAction(h.infoset, responder, sigma, br)), responder, sigma, br);
    }
    return br.value[node] = value;
  }

  // The responder's best action at an infoset: the argmax of its counterfactual values.
  int BrAction(int infoset, int responder, const std::vector<float>& sigma, BrState& br) const {
    if (br.action[infoset] >= 0) return br.action[infoset];
    const Infoset& info = infosets_[infoset];
    int best = -1;
    double best_value = -std::numeric_limits<double>::infinity();
    for (int a = 0; a < game_.num_actions(); ++a) {
      if (!(info.legal >> a & 1)) continue;
      double cfv = 0;
      for (int node : info.nodes)
        cfv += br.reach[node] * BrValue(ChildOf(node, a), responder, sigma, br);
      if (cfv > best_value) best_value = cfv, best = a;
    }
    return br.action[infoset] = best;
  }

  int ChildOf(int node, int action) const {
    const Node& h = nodes_[node];
    return h.first_child + std::popcount(h.legal & ((1u << action) - 1));
  }

  const G& game_;
  std::vector<Node> nodes_;
  std::vector<Root> roots_;
  std::vector<Infoset> infosets_;
  std::unordered_map<std::string, int> infoset_index_;
  std::vector<std::string> history_keys_;
  std::unordered_map<std::string, int> history_index_;
  std::vector<float> encoding_;
};

}  // namespace lcfr::engine

#endif  // LCFR_ENGINE_EXACT_H_
