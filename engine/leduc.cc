#include "engine/leduc.h"

#include <algorithm>

#include "base/check.h"

namespace lcfr::engine {
namespace {

constexpr int kRaiseSize[2] = {2, 4};

}  // namespace

LeducPoker::State LeducPoker::DealCards(int card0, int card1, int board) {
  LCFR_CHECK(card0 >= 0 && card0 < kNumCards && card1 >= 0 && card1 < kNumCards && board >= 0 &&
             board < kNumCards && card0 != card1 && card0 != board && card1 != board);
  State s;
  s.card = {static_cast<uint8_t>(card0), static_cast<uint8_t>(card1), static_cast<uint8_t>(board)};
  return s;
}

LeducPoker::State LeducPoker::Deal(Rng& rng) const {
  std::array<int, kNumCards> cards = {0, 1, 2, 3, 4, 5};
  for (int i = 0; i < 3; ++i) {
    const int j = i + static_cast<int>(rng.Uniform(static_cast<uint32_t>(kNumCards - i)));
    std::swap(cards[i], cards[j]);
  }
  return DealCards(cards[0], cards[1], cards[2]);
}

std::vector<WeightedDeal<LeducPoker::State>> LeducPoker::AllDeals() const {
  std::vector<WeightedDeal<State>> deals;
  for (int a = 0; a < kNumCards; ++a) {
    for (int b = 0; b < kNumCards; ++b) {
      for (int c = 0; c < kNumCards; ++c) {
        if (a != b && a != c && b != c) deals.push_back({DealCards(a, b, c), 1.0 / 120.0});
      }
    }
  }
  return deals;
}

uint32_t LeducPoker::LegalMask(const State& s) const {
  if (s.over) return 0;
  const int player = CurrentPlayer(s);
  uint32_t mask = 1u << kCall;
  if (s.contribution[player] < s.contribution[1 - player]) mask |= 1u << kFold;
  if (s.raises < kMaxRaises) mask |= 1u << kRaise;
  return mask;
}

LeducPoker::UndoRecord LeducPoker::ApplyUnchecked(State& s, int action) const {
  LCFR_DCHECK(LegalMask(s) & (1u << action));
  UndoRecord undo{s};
  const int player = CurrentPlayer(s);
  const int round = s.round;
  if (action == kFold) {
    s.folded = static_cast<int8_t>(player);
    s.over = true;
    return undo;
  }
  const bool first_of_round = s.length[round] == 0;
  s.actions[round][s.length[round]++] = static_cast<uint8_t>(action);
  if (action == kRaise) {
    s.contribution[player] = static_cast<uint8_t>(s.contribution[1 - player] + kRaiseSize[round]);
    ++s.raises;
    return undo;
  }
  // A call: match the opponent; it closes the round unless it is the opening check.
  s.contribution[player] = s.contribution[1 - player];
  if (first_of_round) return undo;
  if (round == 0) {
    s.round = 1;
    s.raises = 0;
  } else {
    s.over = true;
  }
  return undo;
}

LeducPoker::View LeducPoker::MoverView(const State& s) {
  const int player = CurrentPlayer(s);
  View v;
  v.player = static_cast<uint8_t>(player);
  v.card = s.card[player];
  v.board = s.round == 1 ? s.card[2] : kHiddenBoard;
  v.round = s.round;
  v.length = s.length;
  v.actions = s.actions;
  return v;
}

void LeducPoker::HistoryView(const State& s, View& v) {
  v = MoverView(s);
  v.opponent_card = s.card[1 - CurrentPlayer(s)];
}

void LeducPoker::Encode(const View& v, std::span<float> out) const {
  LCFR_DCHECK_EQ(out.size(), static_cast<size_t>(kEncodingSize));
  std::fill(out.begin(), out.end(), 0.0f);
  out[v.player] = 1.0f;
  out[2 + v.card / 2] = 1.0f;
  if (v.round == 1) out[5 + v.board / 2] = 1.0f;
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < v.length[round]; ++i) {
      out[8 + 8 * round + 2 * i + (v.actions[round][i] == kRaise ? 1 : 0)] = 1.0f;
    }
  }
  if (v.opponent_card != kUnknownCard) out[24 + v.opponent_card / 2] = 1.0f;
}

double LeducPoker::Payoff(const State& s, int player) {
  LCFR_DCHECK(s.over);
  int winner;
  if (s.folded >= 0) {
    winner = 1 - s.folded;
  } else {
    const int board = s.card[2] / 2;
    auto strength = [&](int p) {
      const int rank = s.card[p] / 2;
      return rank == board ? 10 + rank : rank;
    };
    const int s0 = strength(0), s1 = strength(1);
    if (s0 == s1) return 0.0;
    winner = s0 > s1 ? 0 : 1;
  }
  const double amount = s.contribution[1 - winner];
  return winner == player ? amount : -amount;
}

std::string LeducPoker::ToString(const State& s) {
  static constexpr char kRanks[] = {'J', 'Q', 'K'};
  static constexpr char kSuits[] = {'s', 'h'};
  auto card = [](int c) { return std::string{kRanks[c / 2], kSuits[c % 2]}; };
  std::string out = card(s.card[0]) + "|" + card(s.card[1]) + " " + card(s.card[2]) + " ";
  for (int round = 0; round <= s.round; ++round) {
    if (round == 1) out += '/';
    for (int i = 0; i < s.length[round]; ++i) out += s.actions[round][i] == kRaise ? 'r' : 'c';
  }
  if (s.folded >= 0) out += 'f';
  return out;
}

}  // namespace lcfr::engine
