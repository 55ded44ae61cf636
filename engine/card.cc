#include "engine/card.h"

#include <charconv>

#include "base/strings.h"

namespace lcfr::engine {

std::string CardName(const Rules& rules, Card card) {
  if (card == kNoCard) return "--";
  const char letter = kColorLetters[CardColor(card)];
  if (IsWager(rules, card)) return std::string{letter, '*'};
  return StrCat(std::string(1, letter), CardValue(rules, card));
}

int ParseColor(const Rules& rules, std::string_view letter) {
  if (letter.size() != 1) return -1;
  for (int c = 0; c < rules.colors; ++c) {
    if (kColorLetters[c] == letter[0]) return c;
  }
  return -1;
}

absl::StatusOr<Card> ParseCard(const Rules& rules, std::string_view name) {
  if (name.size() < 2) {
    return absl::InvalidArgumentError(StrCat("bad card '", name,
                                             "': expected a color letter and a value, "
                                             "e.g. \"R7\" or \"B*\""));
  }
  const int color = ParseColor(rules, name.substr(0, 1));
  if (color < 0) {
    return absl::InvalidArgumentError(
        StrCat("bad card '", name, "': color letter must be one of ",
               std::string_view(kColorLetters, static_cast<size_t>(rules.colors))));
  }
  const std::string_view rest = name.substr(1);
  if (rest == "*") {
    if (rules.wagers == 0) {
      return absl::InvalidArgumentError(
          StrCat("bad card '", name, "': these rules have no wagers"));
    }
    return MakeCard(color, 0);
  }
  int value = 0;
  const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (ec != std::errc() || ptr != rest.data() + rest.size()) {
    return absl::InvalidArgumentError(
        StrCat("bad card '", name, "': value must be a number or '*'"));
  }
  const int index = value - rules.min_rank + rules.wagers;
  if (value < rules.min_rank || value >= rules.min_rank + rules.ranks) {
    return absl::InvalidArgumentError(StrCat("bad card '", name, "': value must be in ",
                                             rules.min_rank, "..",
                                             rules.min_rank + rules.ranks - 1));
  }
  return MakeCard(color, index);
}

absl::StatusOr<Card> CardPool::Take(std::string_view name) {
  absl::StatusOr<Card> card = ParseCard(rules_, name);
  if (!card.ok()) return card;
  Card id = *card;
  if (IsWager(rules_, id)) {
    while (CardIndex(id) < rules_.wagers && Used(id)) ++id;
    if (CardIndex(id) >= rules_.wagers) {
      return absl::InvalidArgumentError(
          StrCat("card '", name, "' appears more than ", rules_.wagers, " times"));
    }
  } else if (Used(id)) {
    return absl::InvalidArgumentError(StrCat("card '", name, "' appears twice"));
  }
  MarkUsed(id);
  return id;
}

}  // namespace lcfr::engine
