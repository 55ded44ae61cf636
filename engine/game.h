// The Game concept: what the CFR traversals (traversal/) and the exact solvers (engine/exact.h)
// need from a two-player zero-sum game. Lost Cities, Kuhn poker and Leduc poker model it, so the
// same traversal code runs on all three and the toy games can check the CFR math exactly.
//
// Conventions every model follows:
// - The state is a small trivially copyable value; ApplyUnchecked/Undo change it in place and
//   Undo restores it exactly (the traversal walks the tree with one state per traversal).
// - Chance happens once, at the root: Deal(rng) samples every chance outcome of the game (cards
//   dealt, deck order, a board card), hidden from the players until the rules reveal it. Sampling
//   it at the root is the same distribution as sampling at each chance node. EnumerableGame adds
//   AllDeals(), the full chance distribution, for the exact solvers.
// - Actions are integers in [0, num_actions()), num_actions() <= 32, and LegalMask has bit a
//   set when action a is legal. A non-terminal state has at least one legal action.
// - View is the player to move's information state: what they know and nothing else, a small
//   trivially copyable value without padding (so equal information states have equal bytes).
//   MoverView(s) takes it (MoverView(s, view) writes it in place); Encode(view, out) writes
//   EncodingSize() floats from it, and Encode(state, out) is Encode(MoverView(state), out): an
//   infoset encoding. A memory stores views and encodes them again when it draws a mini-batch
//   (training/memory.h), bit-identically. EncodingVersion() names its layout; networks record it (a
//   change of the layout bumps it, so that old networks are refused instead of misread). For the
//   toy games it identifies the infoset exactly (perfect recall), so the bytes of the encoding
//   serve as the infoset key of tabular solvers.
// - HistoryView(s, view) writes the history view: the mover's view with the opponent's private
//   information revealed (both hands, the public state), never future chance (the deck order, a
//   board card not yet dealt). Encode(view) of it is the full-information encoding that ESCHER's
//   history value network reads (traversal/cfr.h): the same size and layout as the infoset
//   encoding, from the mover's side, with the opponent's private block filled in. Two states that
//   differ only in future chance have equal history views.
// - ActionClass(view, a) in [0, kMaxActionClasses) names a rule-defined class of legal action a
//   (Lost Cities: continue an expedition, open one, wager, ...), read from the mover's view only.
//   The balanced sampling policy (traversal/cfr.h) is uniform over the classes present, then
//   uniform within the class; a game whose classes are its actions makes it uniform.
// - Payoff(s, p) is player p's payoff at a terminal state, in the game's own units; the two
//   payoffs sum to zero. DefaultPayoffScale() is the typical magnitude of a payoff: traversals
//   divide by it so that network targets are of order one (docs in traversal/cfr.h).
// - MaxDecisions() bounds the number of decisions in one game (Lost Cities' decision cap), so
//   that recursion depth, and so fiber stack size, is bounded. HitDecisionCap(s) tells whether a
//   terminal state ended at that cap rather than by the rules.
#ifndef LCFR_ENGINE_GAME_H_
#define LCFR_ENGINE_GAME_H_

#include <concepts>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "base/rng.h"

namespace lcfr::engine {

inline constexpr int kMaxActionClasses = 8;

template <typename G>
concept Game = requires(const G& game, typename G::State& state, const typename G::State& cstate,
                        const typename G::UndoRecord& undo, int action, int player, Rng& rng,
                        const typename G::View& view, typename G::View& view_out,
                        std::span<float> out) {
  requires std::is_trivially_copyable_v<typename G::State>;
  requires std::is_trivially_copyable_v<typename G::View>;
  requires std::has_unique_object_representations_v<typename G::View>;
  { game.num_actions() } -> std::convertible_to<int>;
  { game.EncodingSize() } -> std::convertible_to<int>;
  { game.EncodingVersion() } -> std::convertible_to<int>;
  { game.MaxDecisions() } -> std::convertible_to<int>;
  { game.DefaultPayoffScale() } -> std::convertible_to<double>;
  { game.Deal(rng) } -> std::same_as<typename G::State>;
  { game.IsTerminal(cstate) } -> std::same_as<bool>;
  { game.HitDecisionCap(cstate) } -> std::same_as<bool>;
  { game.CurrentPlayer(cstate) } -> std::convertible_to<int>;
  { game.LegalMask(cstate) } -> std::same_as<uint32_t>;
  { game.ApplyUnchecked(state, action) } -> std::same_as<typename G::UndoRecord>;
  game.Undo(state, action, undo);
  { game.MoverView(cstate) } -> std::same_as<typename G::View>;
  game.MoverView(cstate, view_out);
  game.HistoryView(cstate, view_out);
  { game.ActionClass(view, action) } -> std::convertible_to<int>;
  game.Encode(view, out);
  game.Encode(cstate, out);
  { game.Payoff(cstate, player) } -> std::convertible_to<double>;
};

// One root chance outcome and its probability.
template <typename State>
struct WeightedDeal {
  State state;
  double probability;
};

// A game small enough to enumerate its chance outcomes, hence to solve exactly.
template <typename G>
concept EnumerableGame = Game<G> && requires(const G& game) {
  { game.AllDeals() } -> std::same_as<std::vector<WeightedDeal<typename G::State>>>;
};

}  // namespace lcfr::engine

#endif  // LCFR_ENGINE_GAME_H_
