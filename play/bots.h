// Scripted players: random, discard-only, and a heuristic in four presets.
//
// Contract of every bot: Act() sees only the mover's view (engine::View, the one the encoder
// encodes: own hand, both expeditions, the discard piles, the deck's size, the opponent's cards
// known from pile draws and the decision counter), so by its type it cannot read the
// opponent's hidden cards or the deck order; callers pass game.MoverView(state). A bot is not
// thread-safe; use one per thread. Randomness comes only from the Rng passed in.
//
// The heuristic (HeuristicBot), per decision of the player to move:
//  * Projection. For each color it estimates what the expedition would be worth if committed
//    to: current sum + the playable numbered cards in hand + `optimism` x P(draw) x the values
//    of the unseen numbered cards that could still follow, minus the cost, times (1 + wagers),
//    plus the bonus if the projected card count reaches the threshold. P(draw) is
//    deck_size / (2 x unseen cards): the chance that an unseen card reaches this hand.
//  * Playing. In an expedition already open it plays its lowest playable card if that skips at
//    most `max_gap` cards that are still live (unseen or in a discard pile); it opens a new
//    expedition when the projection reaches `open_margin` and at least `min_deck_to_open`
//    cards remain (or the cards in hand already pay the cost). A wager is played only first,
//    when the projection without it already clears `wager_margin`; otherwise wagers of that
//    color are abandoned. Plays that skip nothing come first, then openings, then the rest.
//  * The end of the deck. When fewer turns remain than pending plays, it plays the most
//    valuable card that raises its score, and opens an expedition only if the cards in hand
//    alone pay for it.
//  * Discarding (when no play qualifies). It discards the card with the lowest keep value +
//    danger: keep value is high for cards playable on its open expeditions, lower for cards of
//    promising unopened colors, zero for dead cards; danger is the card's value if the
//    opponent could play it on an open expedition (a fraction of it if the opponent has not
//    opened that color).
//  * Drawing. It takes a discard-pile top that it can play on an open expedition with a small
//    gap, or that lifts an unopened color's projection over `open_margin`; otherwise the deck.
// Presets (engine/bots.cc, MakeBot): cautious (low optimism, wagers only on near-certain
// expeditions, gap 1, no late openings), balanced, aggressive (high optimism, low margins,
// gap 3), and noisy (balanced, but a uniformly random legal action with
// probability 0.15).
#ifndef LCFR_PLAY_BOTS_H_
#define LCFR_PLAY_BOTS_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/lost_cities.h"

namespace lcfr::play {

class Bot {
 public:
  virtual ~Bot() = default;
  // Returns a legal action for the player to move. Precondition: the state is not terminal.
  virtual int Act(const engine::LostCities& game, const engine::View& view, Rng& rng) = 0;
  // The same decision, handed the full state: for players that need the public history the view
  // leaves out (the order of the discard piles below their tops). Such a player must still read
  // nothing hidden: the searching player (search/player.h) redeals every hidden card first
  // (engine/worlds.h). Every caller that holds the state (matches, agent, play) calls this; the
  // default plays Act on the mover's view.
  virtual int ActOnState(const engine::LostCities& game, const engine::State& state, Rng& rng) {
    return Act(game, game.MoverView(state), rng);
  }
  // Told of every decision of a game the bot plays, its own and its opponent's, before the move
  // is applied (`before`: the full state; `seat`: the bot's own seat in this game). A bot that
  // keeps a record must keep only what its seat sees (engine/worlds.h, SeeMove). PlayGame and
  // `lcfr play` call it; the default ignores it.
  virtual void Observe(const engine::LostCities& game, const engine::State& before, int action,
                       int seat) {
    (void)game, (void)before, (void)action, (void)seat;
  }
  // Told that the decisions that follow may belong to another game, whose moves it will be told
  // (Observe, from the game's first decision) or not at all: the agent protocol hands over each
  // position on its own. A bot that keeps a record drops it; the default does nothing.
  virtual void Forget() {}
  // The probability that ActOnState plays `action` in `state` (reading only what its mover
  // knows), for a search that weighs an opponent's moves under this player (search/player.h).
  // The default is exact for a deterministic player: 1 for the action it plays, 0 otherwise; a
  // player that draws from its Rng overrides it.
  virtual double Probability(const engine::LostCities& game, const engine::State& state,
                             int action) {
    Rng unused(0);
    return ActOnState(game, state, unused) == action ? 1.0 : 0.0;
  }
  virtual std::string Name() const = 0;
  // The one rule set this player can play, or nullopt for a player of any rules (the scripted
  // bots). A player built for some rules (a network's, whose inputs and outputs are sized by
  // them; a search over such a player) must never be handed a game of others: callers at a
  // boundary check with CheckPlayerRules first, and such players assert it where the game meets
  // their buffers.
  virtual std::optional<engine::Rules> BoundRules() const { return std::nullopt; }
};

// OK when `player` can play games of `rules`; otherwise an error naming both rule sets:
// "the rules (colors=6 ...) are not the player's (colors=5 ...): it plays only the rules it was
// built for".
absl::Status CheckPlayerRules(const Bot& player, const engine::Rules& rules);
// The same for a player bound to `bound`.
absl::Status CheckPlayerRules(const engine::Rules& bound, const engine::Rules& rules);

class RandomBot final : public Bot {
 public:
  int Act(const engine::LostCities& game, const engine::View& view, Rng& rng) override;
  double Probability(const engine::LostCities& game, const engine::State& state,
                     int action) override;
  std::string Name() const override { return "random"; }
};

// Never plays: discards its first hand slot and always draws from the deck. Scores 0.
class DiscardOnlyBot final : public Bot {
 public:
  int Act(const engine::LostCities& game, const engine::View& view, Rng& rng) override;
  std::string Name() const override { return "discard-only"; }
};

// The defaults are the balanced preset.
struct HeuristicParams {
  double optimism = 0.9;       // weight of unseen cards in the projection
  double open_margin = 4.0;    // projected points needed to open an expedition
  double wager_margin = 12.0;  // projected points (before the wager) needed to play a wager
  int max_gap = 2;             // live cards an in-expedition play may skip
  int min_deck_to_open = 8;    // deck size below which only self-paying openings happen
  double noise = 0.0;          // probability of a uniformly random legal action
};

class HeuristicBot final : public Bot {
 public:
  HeuristicBot(std::string name, const HeuristicParams& params)
      : name_(std::move(name)), params_(params) {}
  int Act(const engine::LostCities& game, const engine::View& view, Rng& rng) override;
  // With noise: (1 - noise) for the heuristic's own action, plus noise / legal actions for any.
  double Probability(const engine::LostCities& game, const engine::State& state,
                     int action) override;
  std::string Name() const override { return name_; }
  const HeuristicParams& params() const { return params_; }

 private:
  std::string name_;
  HeuristicParams params_;
};

// Names accepted by MakeBot, e.g. for --help text.
std::vector<std::string> BotNames();
// "random", "discard-only", "heuristic-cautious", "heuristic-balanced",
// "heuristic-aggressive", "heuristic-noisy" ("heuristic" = balanced).
absl::StatusOr<std::unique_ptr<Bot>> MakeBot(std::string_view name);

}  // namespace lcfr::play

#endif  // LCFR_PLAY_BOTS_H_
