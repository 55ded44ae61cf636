#include "engine/rules.h"

#include <array>

#include "base/strings.h"

namespace lcfr::engine {
namespace {

constexpr std::array<RulesField, 9> kFields = {{
    {"colors", &Rules::colors, 1, kMaxColors, "expeditions (6 = the purple edition)"},
    {"ranks", &Rules::ranks, 1, kMaxCardsPerColor, "numbered cards per color"},
    {"min_rank", &Rules::min_rank, 0, 99, "face value of the lowest numbered card"},
    {"wagers", &Rules::wagers, 0, kMaxCardsPerColor - 1, "wager cards per color"},
    {"hand_size", &Rules::hand_size, 1, kMaxHandSize, "cards in each hand"},
    {"expedition_cost", &Rules::expedition_cost, 0, 10000,
     "subtracted from every started expedition"},
    {"bonus_threshold", &Rules::bonus_threshold, 1, kMaxCardsPerColor,
     "cards in an expedition (wagers count) that earn the bonus"},
    {"bonus", &Rules::bonus, 0, 10000, "the bonus"},
    {"max_decisions", &Rules::max_decisions, 2, 60000,
     "safety cap on a game's length, counted in decisions of both players"},
}};

}  // namespace

std::span<const RulesField> RulesFields() { return kFields; }

absl::Status SetRulesField(Rules& rules, const std::string& key, long long value) {
  for (const RulesField& field : kFields) {
    if (key != field.name) continue;
    if (value < field.min || value > field.max) {
      return absl::InvalidArgumentError(StrCat("rules.", key, " = ", value, " is out of range [",
                                               field.min, ", ", field.max, "] (", field.help, ")"));
    }
    rules.*field.member = static_cast<int>(value);
    return absl::OkStatus();
  }
  std::string known;
  for (const RulesField& field : kFields) StrAppend(&known, known.empty() ? "" : ", ", field.name);
  return absl::InvalidArgumentError(
      StrCat("unknown rules key '", key, "' (known keys: ", known, ")"));
}

absl::Status Validate(const Rules& rules) {
  for (const RulesField& field : kFields) {
    const int value = rules.*field.member;
    if (value < field.min || value > field.max) {
      return absl::InvalidArgumentError(StrCat("rules.", field.name, " = ", value,
                                               " is out of range [", field.min, ", ", field.max,
                                               "] (", field.help, ")"));
    }
  }
  if (rules.cards_per_color() > kMaxCardsPerColor) {
    return absl::InvalidArgumentError(
        StrCat("rules.ranks + rules.wagers = ", rules.cards_per_color(), " exceeds the maximum of ",
               kMaxCardsPerColor, " cards per color"));
  }
  if (rules.deck_size() < 2 * rules.hand_size + 1) {
    return absl::InvalidArgumentError(StrCat(
        "the deck of ", rules.deck_size(), " cards (colors x (ranks + wagers)) cannot deal two ",
        "hands of rules.hand_size = ", rules.hand_size, " and leave at least one card"));
  }
  return absl::OkStatus();
}

std::string ToString(const Rules& rules) {
  std::string out;
  for (const RulesField& field : kFields) {
    StrAppend(&out, out.empty() ? "" : " ", field.name, "=", rules.*field.member);
  }
  return out;
}

}  // namespace lcfr::engine
