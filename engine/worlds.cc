#include "engine/worlds.h"

#include <algorithm>
#include <bit>

#include "engine/check.h"

namespace lcfr::engine {

std::vector<Card> SortedHiddenCards(const LostCities& game, const State& s) {
  std::vector<Card> hidden = game.HiddenFromMover(s);
  std::sort(hidden.begin(), hidden.end());
  return hidden;
}

int OpponentUnknownCards(const State& s) {
  const int opponent = 1 - s.player;
  int known = 0;
  for (const uint16_t mask : s.known[opponent]) known += std::popcount(mask);
  return s.hand_count[opponent] - known;
}

State SampleWorld(const LostCities& game, const State& s, Rng& rng) {
  std::vector<Card> hidden = SortedHiddenCards(game, s);
  for (size_t i = hidden.size(); i > 1; --i) {
    const uint32_t j = rng.Uniform(static_cast<uint32_t>(i));
    std::swap(hidden[i - 1], hidden[j]);
  }
  State world = s;
  const int opponent = 1 - s.player;
  // The opponent's hand: its known cards, then the first unknown-count hidden cards.
  auto& hand = world.hand[opponent];
  int count = 0;
  for (int j = 0; j < s.hand_count[opponent]; ++j) {
    const Card card = s.hand[opponent][j];
    if ((s.known[opponent][CardColor(card)] >> CardIndex(card)) & 1) hand[count++] = card;
  }
  const int unknown = s.hand_count[opponent] - count;
  LCFR_CHECK_EQ(static_cast<int>(hidden.size()) - unknown, static_cast<int>(s.deck_size))
      << "the hidden cards do not fill the opponent's unknown slots and the deck";
  for (int k = 0; k < unknown; ++k) hand[count++] = hidden[k];
  std::sort(hand.begin(), hand.begin() + count);
  std::fill(hand.begin() + count, hand.end(), kNoCard);
  // The deck: the rest, in the shuffled order.
  std::copy(hidden.begin() + unknown, hidden.end(), world.deck.begin());
  std::fill(world.deck.begin() + world.deck_size, world.deck.end(), kNoCard);
  return world;
}

}  // namespace lcfr::engine
