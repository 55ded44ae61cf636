// Card identities and their written names.
//
// A card id is color * kMaxCardsPerColor + index. Within a color, indices 0..wagers-1 are the
// wagers and indices wagers..wagers+ranks-1 the numbered cards in ascending value (value =
// min_rank + index - wagers). So sorting ids sorts by color, then wagers first, then value; and
// a color's cards form a 16-bit mask in which "higher" means "may not be played below".
//
// Written names (game records, agent protocol, logs): a color letter Y B W G R P (colors 0..5)
// followed by the face value ("R7", "B10") or '*' for a wager ("G*"). Wagers of one color are
// interchangeable; a parser gives repeated "G*" the next unused wager index.
#ifndef LCFR_ENGINE_CARD_H_
#define LCFR_ENGINE_CARD_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/rules.h"

namespace lcfr::engine {

using Card = uint8_t;
inline constexpr Card kNoCard = 0xFF;
inline constexpr char kColorLetters[] = "YBWGRP";

constexpr Card MakeCard(int color, int index) {
  return static_cast<Card>(color * kMaxCardsPerColor + index);
}
constexpr int CardColor(Card card) { return card / kMaxCardsPerColor; }
constexpr int CardIndex(Card card) { return card % kMaxCardsPerColor; }
constexpr bool IsWager(const Rules& rules, Card card) { return CardIndex(card) < rules.wagers; }
// Face value; 0 for a wager.
constexpr int CardValue(const Rules& rules, Card card) {
  const int index = CardIndex(card);
  return index < rules.wagers ? 0 : rules.min_rank + index - rules.wagers;
}

std::string CardName(const Rules& rules, Card card);

// Parses "R7" / "B*" to a card of the rule set; the returned card is the first wager of the
// color for "*" (callers that track used wagers pick the next one, see ParseCardPool).
absl::StatusOr<Card> ParseCard(const Rules& rules, std::string_view name);

// Color letter to index, -1 if not a color of the rule set.
int ParseColor(const Rules& rules, std::string_view letter);

// Assigns distinct card ids to written names: repeated wagers of one color get successive
// wager indices, and any repeated numbered card or one wager too many is an error. Keeps the
// set of ids handed out so far, so one pool can serve several zones (hand, piles, deck...).
class CardPool {
 public:
  explicit CardPool(const Rules& rules) : rules_(rules) {}
  // Returns the id for `name`, or an error naming the card.
  absl::StatusOr<Card> Take(std::string_view name);
  bool Used(Card card) const { return (used_[card >> 6] >> (card & 63)) & 1; }

 private:
  void MarkUsed(Card card) { used_[card >> 6] |= uint64_t{1} << (card & 63); }
  Rules rules_;
  uint64_t used_[2] = {0, 0};
};

}  // namespace lcfr::engine

#endif  // LCFR_ENGINE_CARD_H_
