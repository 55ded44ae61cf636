// Matches between bots: seat-alternating games on paired deals, with win rates and intervals.
#ifndef LCFR_PLAY_MATCH_H_
#define LCFR_PLAY_MATCH_H_

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/lost_cities.h"
#include "play/bots.h"

namespace lcfr::play {

// What one player did with its expeditions in a game (the evaluation's expedition statistics).
struct ExpeditionStats {
  int opened = 0;              // colors with at least one card played
  int positive = 0;            // of those, colors that scored > 0
  int score = 0;               // the sum of the opened colors' scores
  int wagered_below_cost = 0;  // colors with a wager whose face-value sum ended below the cost
  void Add(const ExpeditionStats& o) {
    opened += o.opened, positive += o.positive, score += o.score;
    wagered_below_cost += o.wagered_below_cost;
  }
};

struct GameOutcome {
  std::array<int, 2> scores{};
  uint64_t deal_digest = 0;  // DealDigest of the state the game started from
  int decisions = 0;
  engine::EndReason end = engine::EndReason::kNotOver;
  std::array<ExpeditionStats, 2> expeditions{};  // per seat
};

// Each seat's expedition statistics at a (final) state.
std::array<ExpeditionStats, 2> ExpeditionStatsOf(const engine::LostCities& game,
                                                 const engine::State& state);

// A digest of the rules and the cards as dealt in `deal` (both hands and the deck's order): equal
// for the same deal of the same rules, different (but for a 2^-64 chance) otherwise. What tells
// lcfr compare that two games files were played on the same deals.
uint64_t DealDigest(const engine::LostCities& game, const engine::State& deal);

// Plays one game from `state` to its end; bots[p] acts for seat p, and both are told of every
// decision (Bot::Observe).
GameOutcome PlayGame(const engine::LostCities& game, engine::State state, Bot* const bots[2],
                     Rng& rng);

struct Interval {
  double low = 0.0;
  double high = 0.0;
};
// Wilson score interval for `successes` out of `n` (z = 1.96: 95%).
Interval WilsonInterval(double successes, double n, double z = 1.96);

// One game of a match, from A's point of view.
struct GameResult {
  int score_a = 0;
  int score_b = 0;
  int decisions = 0;
  bool capped = false;       // cut at max_decisions (scored as it stood)
  uint64_t deal_digest = 0;  // DealDigest of the game's deal
  // A's share of the win: 1 a win, 0.5 a tie, 0 a loss.
  double win() const { return score_a > score_b ? 1.0 : score_a == score_b ? 0.5 : 0.0; }
};

// Results from the point of view of bot A.
struct MatchResult {
  int games = 0;
  int wins = 0;
  int losses = 0;
  int ties = 0;
  int capped = 0;             // games cut at max_decisions (scored as they stood)
  double score_diff_sum = 0;  // sum of (A's score - B's score)
  double score_diff_sq_sum = 0;
  double score_a_sum = 0;
  double score_b_sum = 0;
  double decisions_sum = 0;
  ExpeditionStats a_expeditions;     // A's, summed over the games
  std::vector<GameResult> per_game;  // every game, in the order Add saw them (game order)

  // A's expedition statistics per game and per opened color.
  double colors_opened_per_game() const { return games ? 1.0 * a_expeditions.opened / games : 0.0; }
  double score_per_opened_color() const {
    return a_expeditions.opened ? 1.0 * a_expeditions.score / a_expeditions.opened : 0.0;
  }
  double positive_share() const {
    return a_expeditions.opened ? 1.0 * a_expeditions.positive / a_expeditions.opened : 0.0;
  }
  double wagers_below_cost_per_game() const {
    return games ? 1.0 * a_expeditions.wagered_below_cost / games : 0.0;
  }

  // Ties count as half a win.
  double win_rate() const { return games ? (wins + 0.5 * ties) / games : 0.0; }
  Interval win_rate_ci() const { return WilsonInterval(wins + 0.5 * ties, games); }
  double mean_score_diff() const { return games ? score_diff_sum / games : 0.0; }
  // Half-width of the 95% normal interval of the mean score difference.
  double score_diff_ci_half_width() const;
  double mean_decisions() const { return games ? decisions_sum / games : 0.0; }

  // Counts one game in which A sat in seat `seat_a`.
  void Add(const GameOutcome& outcome, int seat_a);
};

// Two players' results on the same games (the same deals and seats, e.g. a model with and without
// search against one opponent): the mean of A's per-game difference x_a - x_b and its 95% normal
// interval, 1.96 standard errors of that mean. Pairing removes what the deals share, so the
// interval is narrower than the two results' own intervals combined when the deals matter.
struct PairedDifference {
  int games = 0;
  double mean = 0.0;
  double low = 0.0;
  double high = 0.0;
};
// x_a and x_b: a value per game, in the same game order (equal sizes, checked).
PairedDifference PairedDifferenceOf(const std::vector<double>& x_a, const std::vector<double>& x_b);

// Game `g` of a PlayMatch: its deal, seats and random stream (for callers that run the games of
// a match in another order or in parallel and add the outcomes up in game order).
GameOutcome PlayMatchGame(const engine::LostCities& game, Bot& a, Bot& b, int g, uint64_t seed);
inline int SeatOfA(int g) { return g % 2; }

// Plays `games` games. Deals come in pairs: games 2k and 2k+1 use the same deal (from
// DeriveSeed({seed, k})) with the seats swapped, A in seat 0 in even games.
// `progress`, if set, is called after every game with the number of games finished.
MatchResult PlayMatch(const engine::LostCities& game, Bot& a, Bot& b, int games, uint64_t seed,
                      const std::function<void(int)>& progress = {});

}  // namespace lcfr::play

#endif  // LCFR_PLAY_MATCH_H_
