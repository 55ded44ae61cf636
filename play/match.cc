#include "play/match.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"

namespace lcfr::play {

using engine::EndReason;
using engine::LostCities;
using engine::Rules;
using engine::State;

uint64_t DealDigest(const LostCities& game, const State& deal) {
  // FNV-1a over the rules' text, then each hand and the deck, each list ended by its length.
  uint64_t h = 0xcbf29ce484222325ULL;
  auto add = [&h](uint64_t byte) { h = (h ^ (byte & 0xff)) * 0x100000001b3ULL; };
  for (const char c : ToString(game.rules())) add(static_cast<unsigned char>(c));
  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < deal.hand_count[p]; ++i) add(deal.hand[p][i]);
    add(0x100u + deal.hand_count[p]);
  }
  for (int i = 0; i < deal.deck_size; ++i) add(deal.deck[i]);
  add(0x100u + deal.deck_size);
  return h;
}

GameOutcome PlayGame(const LostCities& game, State state, Bot* const bots[2], Rng& rng) {
  const uint64_t digest = DealDigest(game, state);
  for (int seat = 0; seat < 2; ++seat) {
    const absl::Status fits = CheckPlayerRules(*bots[seat], game.rules());
    LCFR_CHECK(fits.ok()) << bots[seat]->Name() << ": " << fits.message();
  }
  while (!LostCities::IsTerminal(state)) {
    const int action = bots[state.player]->ActOnState(game, state, rng);
    LCFR_CHECK((game.LegalMask(state) >> action) & 1)
        << bots[state.player]->Name() << " chose illegal action " << action;
    for (int seat = 0; seat < 2; ++seat) bots[seat]->Observe(game, state, action, seat);
    game.ApplyUnchecked(state, action);
  }
  return {{state.score[0], state.score[1]},
          digest,
          state.decisions,
          state.end,
          ExpeditionStatsOf(game, state)};
}

std::array<ExpeditionStats, 2> ExpeditionStatsOf(const LostCities& game, const State& state) {
  std::array<ExpeditionStats, 2> stats{};
  const Rules& rules = game.rules();
  const uint32_t wagers = (1u << rules.wagers) - 1;
  for (int p = 0; p < 2; ++p) {
    for (int c = 0; c < rules.colors; ++c) {
      const uint32_t expedition = state.expedition[p][c];
      if (expedition == 0) continue;
      const int score = game.ColorScore(state, p, c);
      ++stats[p].opened;
      stats[p].positive += score > 0;
      stats[p].score += score;
      stats[p].wagered_below_cost +=
          (expedition & wagers) != 0 && state.expedition_sum[p][c] < rules.expedition_cost;
    }
  }
  return stats;
}

Interval WilsonInterval(double successes, double n, double z) {
  if (n <= 0) return {0.0, 1.0};
  const double p = successes / n;
  const double z2 = z * z;
  const double center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

double MatchResult::score_diff_ci_half_width() const {
  if (games < 2) return 0.0;
  const double mean = mean_score_diff();
  const double var = (score_diff_sq_sum - games * mean * mean) / (games - 1);
  return 1.96 * std::sqrt(std::max(0.0, var) / games);
}

void MatchResult::Add(const GameOutcome& outcome, int seat_a) {
  const int diff = outcome.scores[seat_a] - outcome.scores[1 - seat_a];
  ++games;
  wins += diff > 0;
  losses += diff < 0;
  ties += diff == 0;
  capped += outcome.end == EndReason::kDecisionCap;
  score_diff_sum += diff;
  score_diff_sq_sum += static_cast<double>(diff) * diff;
  score_a_sum += outcome.scores[seat_a];
  score_b_sum += outcome.scores[1 - seat_a];
  decisions_sum += outcome.decisions;
  a_expeditions.Add(outcome.expeditions[seat_a]);
  per_game.push_back({outcome.scores[seat_a], outcome.scores[1 - seat_a], outcome.decisions,
                      outcome.end == EndReason::kDecisionCap, outcome.deal_digest});
}

PairedDifference PairedDifferenceOf(const std::vector<double>& x_a,
                                    const std::vector<double>& x_b) {
  LCFR_CHECK_EQ(x_a.size(), x_b.size()) << "paired results need the same games";
  PairedDifference d;
  d.games = static_cast<int>(x_a.size());
  if (d.games == 0) return d;
  double sum = 0, sum2 = 0;
  for (size_t i = 0; i < x_a.size(); ++i) {
    const double v = x_a[i] - x_b[i];
    sum += v;
    sum2 += v * v;
  }
  const double n = d.games;
  d.mean = sum / n;
  const double var = d.games > 1 ? std::max(0.0, (sum2 - n * d.mean * d.mean) / (n - 1)) : 0.0;
  const double half = 1.96 * std::sqrt(var / n);
  d.low = d.mean - half;
  d.high = d.mean + half;
  return d;
}

GameOutcome PlayMatchGame(const LostCities& game, Bot& a, Bot& b, int g, uint64_t seed) {
  const auto pair = static_cast<uint64_t>(g / 2);
  const State deal = game.DealFromSeed(DeriveSeed({seed, pair}));
  const int seat_a = SeatOfA(g);
  Bot* bots[2];
  bots[seat_a] = &a;
  bots[1 - seat_a] = &b;
  Rng rng(DeriveSeed({seed, pair, static_cast<uint64_t>(seat_a), 1}));
  return PlayGame(game, deal, bots, rng);
}

MatchResult PlayMatch(const LostCities& game, Bot& a, Bot& b, int games, uint64_t seed,
                      const std::function<void(int)>& progress) {
  MatchResult result;
  for (int g = 0; g < games; ++g) {
    result.Add(PlayMatchGame(game, a, b, g, seed), SeatOfA(g));
    if (progress) progress(g + 1);
  }
  return result;
}

}  // namespace lcfr::play
