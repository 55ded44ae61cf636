// The boundary between traversal and inference, owned by traversal: no tensors here.
//
// A traversal that needs a player's strategy makes a PolicyRequest (network id, the infoset
// features, the legal mask, and where to write the answer) through a PolicyClient
// (traversal/fiber_batcher.h). The worker's batcher gathers the requests of all its suspended
// traversals and hands them to its Evaluator in one call. inference/ implements Evaluator with
// libtorch networks; traversal/evaluators.h has the test doubles (uniform, tabular, a
// deterministic pseudo-network).
#ifndef LCFR_TRAVERSAL_EVALUATOR_H_
#define LCFR_TRAVERSAL_EVALUATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>

namespace lcfr::traversal {

// Network ids. The CFR traversals ask the advantage network of the player to move (its current
// regret-matching strategy); evaluation and agents ask the strategy network. The value scheme
// (traversal/cfr.h) also asks the value network: the expected payoff of each action for the
// player to move, in scaled payoff units, when both players follow their current strategies.
inline constexpr int kAdvantageNetwork0 = 0;
inline constexpr int kAdvantageNetwork1 = 1;
inline constexpr int kStrategyNetwork = 2;
inline constexpr int kValueNetwork = 3;
inline constexpr int kMaxNetworks = 4;
inline constexpr int AdvantageNetwork(int player) { return player; }

// What the caller wants from a network's raw outputs: the caller (the traversal, a bot) chooses
// it; the evaluator only computes it (ApplyHead in traversal/regret_matching.h for one row).
enum class Head : uint8_t {
  kRegretMatching,         // regret matching over the legal actions; when no advantage is
                           // positive, all mass on the best legal action(s), ties split (the
                           // Deep CFR paper's rule for network advantages)
  kRegretMatchingUniform,  // the same with the uniform fallback (tabular CFR's rule)
  kSoftmax,                // the masked softmax (a strategy network's logits)
  kRaw,                    // the outputs at the legal actions, 0 elsewhere (action values)
};
inline constexpr int kNumHeads = 4;

struct PolicyRequest {
  int network = 0;                    // in [0, kMaxNetworks)
  Head head = Head::kRegretMatching;  // what to compute from the network's outputs
  std::span<const float> features;    // the game's infoset encoding
  uint32_t legal_mask = 0;            // bit a set: action a legal; at least one bit set
  std::span<float> output;            // num_actions floats, owned by the caller
};

// Fills each request's output with its head applied to the network's outputs (0 at illegal
// actions): a probability distribution for the regret-matching and softmax heads, the raw
// outputs for kRaw. One instance per worker; called on the worker's thread (never on a
// fiber), one batch at a time; requests may mix networks. The spans stay valid during the call
// only. Errors are thrown (the worker cancels its traversals and rethrows).
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual void Evaluate(std::span<const PolicyRequest> requests) = 0;
};

// The evaluator of worker `worker`: how a phase's workers each get their own (called once per
// worker, before its thread starts).
using EvaluatorFactory = std::function<std::unique_ptr<Evaluator>(int worker)>;

}  // namespace lcfr::traversal

#endif  // LCFR_TRAVERSAL_EVALUATOR_H_
