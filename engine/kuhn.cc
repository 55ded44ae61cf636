#include "engine/kuhn.h"

#include <algorithm>

#include "base/check.h"

namespace lcfr::engine {

KuhnPoker::State KuhnPoker::DealCards(int card0, int card1) {
  LCFR_CHECK(card0 >= 0 && card0 < kNumCards && card1 >= 0 && card1 < kNumCards && card0 != card1);
  State s;
  s.card = {static_cast<uint8_t>(card0), static_cast<uint8_t>(card1)};
  return s;
}

KuhnPoker::State KuhnPoker::Deal(Rng& rng) const {
  const int first = static_cast<int>(rng.Uniform(kNumCards));
  const int offset = 1 + static_cast<int>(rng.Uniform(kNumCards - 1));
  return DealCards(first, (first + offset) % kNumCards);
}

std::vector<WeightedDeal<KuhnPoker::State>> KuhnPoker::AllDeals() const {
  std::vector<WeightedDeal<State>> deals;
  for (int a = 0; a < kNumCards; ++a) {
    for (int b = 0; b < kNumCards; ++b) {
      if (a != b) deals.push_back({DealCards(a, b), 1.0 / 6.0});
    }
  }
  return deals;
}

bool KuhnPoker::IsTerminal(const State& s) {
  if (s.length < 2) return false;
  if (s.length == 3) return true;
  // pp, bp, bb end the game; pb waits for player 0's answer.
  return !(s.history[0] == kPass && s.history[1] == kBet);
}

KuhnPoker::UndoRecord KuhnPoker::ApplyUnchecked(State& s, int action) const {
  LCFR_DCHECK(!IsTerminal(s) && (action == kPass || action == kBet));
  UndoRecord undo{s};
  s.history[s.length++] = static_cast<uint8_t>(action);
  return undo;
}

KuhnPoker::View KuhnPoker::MoverView(const State& s) {
  const int player = CurrentPlayer(s);
  return {static_cast<uint8_t>(player), s.card[player], s.length, s.history, kUnknownCard};
}

void KuhnPoker::HistoryView(const State& s, View& v) {
  v = MoverView(s);
  v.opponent_card = s.card[1 - CurrentPlayer(s)];
}

void KuhnPoker::Encode(const View& v, std::span<float> out) const {
  LCFR_DCHECK_EQ(out.size(), static_cast<size_t>(kEncodingSize));
  std::fill(out.begin(), out.end(), 0.0f);
  out[v.player] = 1.0f;
  out[2 + v.card] = 1.0f;
  for (int i = 0; i < std::min<int>(v.length, 2); ++i) out[5 + 2 * i + v.history[i]] = 1.0f;
  if (v.opponent_card != kUnknownCard) out[9 + v.opponent_card] = 1.0f;
}

double KuhnPoker::Payoff(const State& s, int player) {
  LCFR_DCHECK(IsTerminal(s));
  const int winner_by_cards = s.card[0] > s.card[1] ? 0 : 1;
  int winner;
  double amount;
  if (s.length == 2 && s.history[0] == kBet && s.history[1] == kPass) {
    winner = 0, amount = 1;  // player 1 folds
  } else if (s.length == 3 && s.history[2] == kPass) {
    winner = 1, amount = 1;  // player 0 folds to pb
  } else {
    winner = winner_by_cards;
    amount = (s.history[0] == kBet || s.history[1] == kBet) ? 2 : 1;
  }
  return winner == player ? amount : -amount;
}

std::string KuhnPoker::ToString(const State& s) {
  static constexpr char kCardNames[] = {'J', 'Q', 'K'};
  std::string out = {kCardNames[s.card[0]], '|', kCardNames[s.card[1]], ' '};
  for (int i = 0; i < s.length; ++i) out += s.history[i] == kPass ? 'p' : 'b';
  return out;
}

}  // namespace lcfr::engine
