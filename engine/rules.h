// The rule parameters of Lost Cities (docs/rules.md), their valid ranges, and the compile-time
// bounds that keep the game state a fixed-size value.
#ifndef LCFR_ENGINE_RULES_H_
#define LCFR_ENGINE_RULES_H_

#include <span>
#include <string>

#include "absl/status/status.h"

namespace lcfr::engine {

// Compile-time bounds on every rule set; Validate() rejects rule sets beyond them.
inline constexpr int kMaxColors = 6;
inline constexpr int kMaxCardsPerColor = 16;  // ranks + wagers
inline constexpr int kMaxHandSize = 12;
inline constexpr int kMaxDeckSize = kMaxColors * kMaxCardsPerColor;    // 96
inline constexpr int kMaxActions = 2 * kMaxHandSize + 1 + kMaxColors;  // 31: fits a uint32 mask

// One rule set. Classic values are the defaults.
struct Rules {
  int colors = 5;            // expeditions, 1..6 (6 = the purple edition)
  int ranks = 9;             // numbered cards per color
  int min_rank = 2;          // face value of the lowest numbered card
  int wagers = 3;            // wager cards per color
  int hand_size = 8;         // cards in each hand
  int expedition_cost = 20;  // subtracted from every started expedition
  int bonus_threshold = 8;   // cards in an expedition (wagers count) that earn the bonus
  int bonus = 20;            // the bonus
  int max_decisions = 1000;  // safety cap on a game's length (decisions, both players)

  int cards_per_color() const { return ranks + wagers; }
  int deck_size() const { return colors * cards_per_color(); }
  // Size of the fixed action space: 2 * hand_size + 1 + colors.
  int num_actions() const { return 2 * hand_size + 1 + colors; }

  bool operator==(const Rules&) const = default;
};

// One row of the rules field table: drives parsing (records, agent protocol, CLI), range
// checks, help text and dumping, so that no field is listed twice.
struct RulesField {
  const char* name;  // key as in rules.md and in game records
  int Rules::*member;
  int min;
  int max;
  const char* help;
};

std::span<const RulesField> RulesFields();

// Checks every field's range and the cross-field constraints (deck must deal both hands and
// leave at least one card; ranks + wagers <= kMaxCardsPerColor). The message names the key.
absl::Status Validate(const Rules& rules);

// Sets one field by name from an integer; errors name the key and the valid range. Does not
// run the cross-field checks (call Validate once all fields are set).
absl::Status SetRulesField(Rules& rules, const std::string& key, long long value);

// "colors=5 ranks=9 ..." in field-table order.
std::string ToString(const Rules& rules);

}  // namespace lcfr::engine

#endif  // LCFR_ENGINE_RULES_H_
