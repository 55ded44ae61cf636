// The search's configuration (docs/search.md): one struct, and field tables (base/fields.h) that
// drive the command-line options of eval, agent and play, their range checks, --help, the JSON
// summary of eval and the options table of docs/search.md. The product's options are in
// SearchFields(); those kept only to measure levers (search/experimental/, docs/experiments.md)
// are in ExperimentalSearchFields(), hidden from --help and listed by --help-experimental.
// Torch-free.
#ifndef LCFR_SEARCH_CONFIG_H_
#define LCFR_SEARCH_CONFIG_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "base/fields.h"
#include "play/play_policy.h"
#include "traversal/cfr.h"

namespace lcfr::search {

// What a rollout's result is: the mover's score difference / 100 (the game's payoff, what the
// networks were trained on), or 1 for a win, 0.5 a tie, 0 a loss.
enum class Objective { kScore, kWin };
inline constexpr EnumName kObjectiveNames[] = {{"score", 0}, {"win", 1}};

// How the rounds are spread over the candidates: every candidate every round, or racing
// (experimental: search/experimental/racing.h).
enum class Allocation { kUniform, kRacing };
inline constexpr EnumName kAllocationNames[] = {{"uniform", 0}, {"racing", 1}};

struct SearchConfig {
  int rollouts = 500;    // budget per decision, in rollouts (all candidates together)
  int move_time_ms = 0;  // budget per decision in milliseconds, whichever ends first; 0 = none
  // M: the blueprint's M most probable actions and its own choice; 0 = every legal action.
  int candidates = 4;
  double threshold = 1.0;  // standard errors by which a* must beat the blueprint's choice b
  // The policy of both players in the rollouts: "" = the blueprint itself, "model" = the model
  // with the blueprint's play policy, a play policy's name (the model with that one), or a bot.
  std::string rollout_policy;
  // The opponent's side of the rollouts, named the same way ("" = rollout_policy's); several,
  // comma-separated: opponent inference weighs them by the opponent's moves
  // (search/opponent_inference.h).
  std::string opponent_rollout_policy;
  int opponent_worlds = 100;  // opponent inference: worlds with a past drawn per decision
  Objective objective = Objective::kScore;
  // The rollouts' networks file (e.g. a student of lcfr distill): the composition root loads it
  // and hands the player its evaluators; "" = the blueprint's model.
  std::string rollout_model;
  int width = 128;  // rollouts in flight per worker (fibers)
  int workers = 2;  // threads per decision (eval: 1, a game per thread); both cores of the
                    // 2-core machine the default budget is sized for

  // Experimental (search/experimental/): kept to measure them, off by default.
  Allocation allocation = Allocation::kUniform;
  double drop_threshold = 2.0;  // racing: standard errors by which a candidate must trail
  int rollout_depth = 0;        // rollouts cut after this many decisions (value network); 0 = none
  int belief = 0;               // worlds with a past weighed by the opponent's moves; 0 = none
  double belief_power = 1.0;    // the belief's likelihoods raised to this power
  bool oracle_hand = false;     // a diagnostic that cheats: the opponent's true hand (eval only)
  bool oracle_deck = false;     // with oracle_hand, the deck's true order too (eval only)

  // The opponent's rollout policies: opponent_rollout_policy split at commas, or
  // {rollout_policy} when it is empty.
  std::vector<std::string> opponent_policies() const;
  // Whether the search infers the opponent's policy: two or more of them.
  bool infers_opponent() const { return opponent_policies().size() > 1; }
  // Whether rollout_policy or an opponent's rollout policy names the model.
  bool rollouts_name_model() const;
  // Ranges (from the tables) and cross-field rules; errors name the command-line flag.
  absl::Status Validate() const;
};

// The product's options and the experimental ones, as rows of SearchConfig. A row's key is its
// command-line flag without the dashes, '_' for '-' (FlagName).
std::span<const Field<SearchConfig>> SearchFields();
std::span<const Field<SearchConfig>> ExperimentalSearchFields();
// "--move-time-ms" for "move_time_ms".
std::string FlagName(std::string_view key);
// The options table of docs/search.md: "| flag | default | meaning |", a row per product option.
std::string OptionsMarkdown();

// What the search plays on top of: the model's policy (`play`, served by the evaluators the
// player is built with), or a scripted bot when `bot` names one.
struct Blueprint {
  // What the model's value network reads, for rollout_depth: none (the scheme trains none), the
  // mover's infoset (the value scheme) or the history (ESCHER).
  enum class Value { kNone, kInfoset, kHistory };
  std::string bot;  // "" = the model
  play::PlayPolicy play;
  Value value = Value::kNone;
  double value_scale = 1.0;  // the value network's outputs x value_scale = payoffs / 100 points
  bool is_model() const { return bot.empty(); }
  std::string Name() const;  // "model (current)" or the bot's name
  // The value network of a model trained with `cfr` (its scheme and payoff scale).
  void SetValue(const traversal::CfrConfig& cfr);
};

// "model" or a play policy's name: the model plays that side.
bool NamesModel(const std::string& name);

}  // namespace lcfr::search

#endif  // LCFR_SEARCH_CONFIG_H_
