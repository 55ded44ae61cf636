#include "engine/worlds.h"

#include <algorithm>
#include <bit>

#include "base/check.h"
#include "base/strings.h"

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
  Shuffle(hidden, rng);
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

SeenMove SeeMove(const LostCities& game, const State& before, int action, int observer) {
  const Move move = game.DecodeAction(action);
  SeenMove seen{before.player, move.kind, kNoCard};
  if (move.kind != Move::Kind::kDrawDeck) {
    seen.card = game.ActionCard(before, action);
  } else if (before.player == observer && before.deck_size > 0) {
    seen.card = before.deck[before.deck_size - 1];
  }
  return seen;
}

namespace {

// Removes `card` from `cards`; false if it is not there.
bool Remove(std::vector<Card>& cards, Card card) {
  const auto it = std::find(cards.begin(), cards.end(), card);
  if (it == cards.end()) return false;
  cards.erase(it);
  return true;
}

}  // namespace

absl::StatusOr<WorldHistory> SampleWorldHistory(const LostCities& game, const State& s,
                                                std::span<const SeenMove> seen, Rng& rng) {
  auto bad = [](auto&&... parts) { return absl::InvalidArgumentError(StrCat(parts...)); };
  const Rules& rules = game.rules();
  const int n = static_cast<int>(seen.size());
  if (n != s.decisions) {
    return bad("the seen history has ", n, " moves, the state ", int{s.decisions}, " decisions");
  }
  const int me = s.player, opponent = 1 - me;
  // The hidden cards, shuffled as SampleWorld shuffles them: the first `unknown` fill the
  // opponent's unknown slots, the rest are the deck (bottom first).
  std::vector<Card> hidden = SortedHiddenCards(game, s);
  Shuffle(hidden, rng);
  const int unknown = OpponentUnknownCards(s);
  if (static_cast<int>(hidden.size()) - unknown != s.deck_size) {
    return bad("the hidden cards do not fill the opponent's unknown slots and the deck");
  }
  // The hands now, then walked back to the deal.
  std::vector<Card> hands[2];
  hands[me].assign(s.hand[me].begin(), s.hand[me].begin() + s.hand_count[me]);
  for (int j = 0; j < s.hand_count[opponent]; ++j) {
    const Card card = s.hand[opponent][j];
    if ((s.known[opponent][CardColor(card)] >> CardIndex(card)) & 1)
      hands[opponent].push_back(card);
  }
  hands[opponent].insert(hands[opponent].end(), hidden.begin(), hidden.begin() + unknown);
  // Whether the opponent is known to have taken `card` from a pile before move i: the card's
  // last sighting before i is that pile draw.
  auto from_pile_before = [&](Card card, int i) {
    for (int j = i - 1; j >= 0; --j) {
      if (seen[j].card == card)
        return seen[j].player == opponent && seen[j].kind == Move::Kind::kDrawPile;
    }
    return false;
  };
  std::vector<Card> drawn(n, kNoCard);  // each deck draw's card
  std::vector<Card> eligible;
  for (int i = n - 1; i >= 0; --i) {
    const SeenMove& m = seen[i];
    if (m.player > 1) return bad("seen move ", i, ": player ", int{m.player});
    std::vector<Card>& hand = hands[m.player];
    switch (m.kind) {
      case Move::Kind::kPlay:
      case Move::Kind::kDiscard:
        if (m.card == kNoCard) return bad("seen move ", i, ": a card move without its card");
        hand.push_back(m.card);
        break;
      case Move::Kind::kDrawPile:
        if (!Remove(hand, m.card)) {
          return bad("seen move ", i, ": the pile draw's card is not in the hand after it");
        }
        break;
      case Move::Kind::kDrawDeck:
        if (m.player == me) {
          if (m.card == kNoCard || !Remove(hand, m.card)) {
            return bad("seen move ", i, ": the mover's own deck draw is not in its hand after it");
          }
          drawn[i] = m.card;
        } else {
          eligible.clear();
          for (const Card card : hand) {
            if (!from_pile_before(card, i)) eligible.push_back(card);
          }
          if (eligible.empty()) return bad("seen move ", i, ": no card can be this deck draw");
          const Card card = eligible[rng.Uniform(static_cast<uint32_t>(eligible.size()))];
          Remove(hand, card);
          drawn[i] = card;
        }
        break;
    }
  }
  const int h = rules.hand_size;
  for (int p = 0; p < 2; ++p) {
    if (static_cast<int>(hands[p].size()) != h) {
      return bad("walked back to the deal, player ", p, " holds ", hands[p].size(), " cards, not ",
                 h);
    }
  }
  // The deck as DealFromDeck takes it (bottom first, the top last): the two hands dealt card by
  // card, seat 0 first, then the deck draws in order, then the deck as it is now.
  const int total = rules.deck_size();
  std::vector<Card> deck(total, kNoCard);
  for (int k = 0; k < 2 * h; ++k) deck[total - 1 - k] = hands[k % 2][k / 2];
  int top = total - 2 * h - 1;
  for (int i = 0; i < n; ++i) {
    if (seen[i].kind != Move::Kind::kDrawDeck) continue;
    if (top < s.deck_size) return bad("the seen history draws more cards than the deck held");
    deck[top--] = drawn[i];
  }
  if (top != s.deck_size - 1) {
    return bad("the seen history's deck draws leave ", top + 1, " cards, the state ",
               int{s.deck_size});
  }
  std::copy(hidden.begin() + unknown, hidden.end(), deck.begin());
  absl::StatusOr<State> deal = game.DealFromDeck(deck);
  if (!deal.ok()) return deal.status();
  WorldHistory world{*deal, {}, *deal};
  world.actions.reserve(n);
  State& t = world.now;
  for (int i = 0; i < n; ++i) {
    const SeenMove& m = seen[i];
    int action = -1;
    if (m.kind == Move::Kind::kDrawDeck) {
      action = game.deck_action();
    } else if (m.kind == Move::Kind::kDrawPile) {
      action = game.pile_action(CardColor(m.card));
    } else {
      const auto& hand = t.hand[m.player];
      const auto it = std::find(hand.begin(), hand.begin() + t.hand_count[m.player], m.card);
      if (t.player != m.player || it == hand.begin() + t.hand_count[m.player]) {
        return bad("seen move ", i, ": ", CardName(rules, m.card), " is not in player ",
                   int{m.player}, "'s hand");
      }
      const int slot = static_cast<int>(it - hand.begin());
      action =
          game.EncodeMove(m.kind == Move::Kind::kPlay ? Move::Play(slot) : Move::Discard(slot));
    }
    if (t.player != m.player)
      return bad("seen move ", i, ": player ", int{m.player}, " is not to move");
    if (absl::Status st = game.ApplyChecked(t, action); !st.ok()) {
      return bad("seen move ", i, " does not fit the rebuilt game: ", st.message());
    }
    world.actions.push_back(action);
  }
  if (!(game.MoverView(t) == game.MoverView(s)) || t.pile != s.pile || t.known != s.known) {
    return bad("the seen history does not lead to the state");
  }
  std::fill(t.deck.begin() + t.deck_size, t.deck.end(), kNoCard);
  return world;
}

}  // namespace lcfr::engine
