#include "play/bots.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "base/strings.h"
#include "fmt/ranges.h"

namespace lcfr::play {

using engine::ActionMask;
using engine::Card;
using engine::CardColor;
using engine::CardIndex;
using engine::CardValue;
using engine::HighestBit;
using engine::kMaxColors;
using engine::LostCities;
using engine::MakeCard;
using engine::Move;
using engine::Phase;
using engine::Rules;
using engine::State;
using engine::View;
namespace {

int PickUniform(ActionMask mask, Rng& rng) {
  LCFR_CHECK_NE(mask, 0u) << "no legal action";
  uint32_t k = rng.Uniform(static_cast<uint32_t>(std::popcount(mask)));
  while (k-- > 0) mask &= mask - 1;
  return std::countr_zero(mask);
}

// Bits strictly between index lo (may be -1: no lower bound) and index hi.
uint32_t Between(int lo, int hi) {
  if (hi <= lo + 1) return 0;
  const uint32_t at_or_below_lo = lo < 0 ? 0u : (2u << lo) - 1;
  return ((1u << hi) - 1) & ~at_or_below_lo;
}

// Everything the heuristic derives from the mover's view (mover-relative: player 0 is the
// mover, 1 the opponent).
class Analysis {
 public:
  Analysis(const LostCities& game, const View& s, const HeuristicParams& params)
      : rules_(game.rules()), s_(s), params_(params) {
    const int k = rules_.cards_per_color();
    color_mask_ = (1u << k) - 1;
    wager_mask_ = (1u << rules_.wagers) - 1;
    int unseen_total = 0;
    for (int j = 0; j < s.hand_count; ++j) {
      const Card card = s.hand[j];
      hand_[CardColor(card)] |= 1u << CardIndex(card);
    }
    for (int c = 0; c < rules_.colors; ++c) {
      const uint32_t visible =
          hand_[c] | s.expedition[0][c] | s.expedition[1][c] | s.piled[c] | s.opponent_known[c];
      unseen_[c] = color_mask_ & ~visible;
      unseen_total += std::popcount(unseen_[c]);
      playable_[0][c] = PlayableMask(s.expedition[0][c]);
      playable_[1][c] = PlayableMask(s.expedition[1][c]);
    }
    p_draw_ = unseen_total > 0 ? std::min(1.0, s.deck_size / (2.0 * unseen_total)) * params.optimism
                               : 0.0;
    my_turns_left_ = (s.deck_size + 1) / 2;
  }

  static constexpr int kMe = 0;
  int me() const { return kMe; }
  int Value(int index) const { return CardValue(rules_, MakeCard(0, index)); }
  bool IsWagerIndex(int index) const { return index < rules_.wagers; }
  uint32_t hand(int c) const { return hand_[c]; }
  uint32_t Playable(int who, int c) const { return playable_[who][c]; }
  bool Open(int who, int c) const { return s_.expedition[who][c] != 0; }
  uint32_t Live(int c) const { return unseen_[c] | s_.piled[c]; }
  int my_turns_left() const { return my_turns_left_; }

  int SumValues(uint32_t mask) const {
    int sum = 0;
    for (uint32_t m = mask; m; m &= m - 1) sum += Value(std::countr_zero(m));
    return sum;
  }

  // Whether wagers of color c are worth playing: the projection without them clears the margin.
  bool WagerOk(int c, uint32_t extra = 0) const {
    if ((s_.expedition[kMe][c] & ~wager_mask_) != 0) return false;  // numbered card already
    return ProjectedPoints(c, extra, /*with_wagers=*/false) >= params_.wager_margin;
  }

  // Projected points of my expedition c if I commit to it (see bots.h), with `extra` cards
  // (indices) added to my hand.
  double ProjectedPoints(int c, uint32_t extra, bool with_wagers) const {
    const uint32_t exp = s_.expedition[kMe][c];
    const uint32_t held = (hand_[c] | extra) & playable_[kMe][c];
    const uint32_t held_numbered = held & ~wager_mask_;
    const uint32_t held_wagers = with_wagers ? held & wager_mask_ : 0;
    // Unseen numbered cards above both my top and my lowest held numbered card could follow.
    int floor_index = HighestBit(exp);
    if (held_numbered != 0) floor_index = std::max(floor_index, std::countr_zero(held_numbered));
    const uint32_t future =
        unseen_[c] & ~wager_mask_ & ~((floor_index >= 0) ? (2u << floor_index) - 1 : 0u);
    const double sum =
        s_.expedition_sum[kMe][c] + SumValues(held_numbered) + p_draw_ * SumValues(future);
    const double cards = std::popcount(exp) + std::popcount(held_numbered | held_wagers) +
                         p_draw_ * std::popcount(future);
    const int wagers = std::popcount(exp & wager_mask_) + std::popcount(held_wagers);
    double points = (sum - rules_.expedition_cost) * (1 + wagers);
    if (cards >= rules_.bonus_threshold) points += rules_.bonus;
    return points;
  }

  // Points my expedition c gains if I play only cards already in hand (no future draws).
  int SelfPayingPoints(int c) const {
    const uint32_t held = hand_[c] & playable_[kMe][c] & ~wager_mask_;
    return s_.expedition_sum[kMe][c] + SumValues(held) - rules_.expedition_cost;
  }

  // Live numbered cards strictly between my top in color c and card index i.
  int GapCount(int c, int i) const {
    const int top = HighestBit(s_.expedition[kMe][c]);
    return std::popcount(Live(c) & ~wager_mask_ & Between(std::max(top, rules_.wagers - 1), i));
  }

 private:
  uint32_t PlayableMask(uint32_t exp) const {
    const int top = HighestBit(exp);
    return top >= rules_.wagers ? color_mask_ & ~((2u << top) - 1) : color_mask_;
  }

  const Rules& rules_;
  const View& s_;
  const HeuristicParams& params_;
  uint32_t color_mask_ = 0;
  uint32_t wager_mask_ = 0;
  std::array<uint32_t, kMaxColors> hand_{};
  std::array<uint32_t, kMaxColors> unseen_{};
  std::array<std::array<uint32_t, kMaxColors>, 2> playable_{};
  double p_draw_ = 0.0;
  int my_turns_left_ = 0;
};

int SlotOf(const View& s, Card card) {
  for (int k = 0; k < s.hand_count; ++k) {
    if (s.hand[k] == card) return k;
  }
  LCFR_CHECK(false) << "card not in hand";
  return -1;
}

int CardDecision(const LostCities& game, const View& s, const HeuristicParams& params,
                 const Analysis& v) {
  const Rules& rules = game.rules();
  const int me = v.me();
  const int opp = 1 - me;

  // Pending plays: cards playable on my open expeditions.
  int pending = 0;
  for (int c = 0; c < rules.colors; ++c) {
    if (v.Open(me, c)) pending += std::popcount(v.hand(c) & v.Playable(me, c));
  }
  const bool endgame = pending >= v.my_turns_left();

  // Candidate plays, lower priority tuple first: (class, gap, value).
  struct Candidate {
    int klass;
    int gap;
    int value;
    Card card;
  };
  bool have = false;
  Candidate best{};
  auto consider = [&](const Candidate& cand) {
    if (!have ||
        std::tie(cand.klass, cand.gap, cand.value) < std::tie(best.klass, best.gap, best.value)) {
      best = cand;
      have = true;
    }
  };

  for (int c = 0; c < rules.colors; ++c) {
    uint32_t playable = v.hand(c) & v.Playable(me, c);
    if (playable == 0) continue;
    const uint32_t wagers = playable & ((1u << rules.wagers) - 1);
    if (wagers != 0 && !v.WagerOk(c)) playable &= ~wagers;
    if (playable == 0) continue;
    if (endgame) {
      // Most valuable card that raises the score now.
      if (v.Open(me, c)) {
        const int i = HighestBit(playable & ~((1u << rules.wagers) - 1));
        if (i >= 0) consider({0, 0, -v.Value(i), MakeCard(c, i)});
      } else if (v.SelfPayingPoints(c) > 0) {
        consider({1, 0, 0, MakeCard(c, std::countr_zero(playable))});
      }
      continue;
    }
    const int i = std::countr_zero(playable);  // lowest playable card (a wager if any is kept)
    if (v.Open(me, c)) {
      const int gap = v.IsWagerIndex(i) ? 0 : v.GapCount(c, i);
      if (gap <= params.max_gap) consider({gap == 0 ? 0 : 2, gap, v.Value(i), MakeCard(c, i)});
    } else {
      const double projected = v.ProjectedPoints(c, 0, /*with_wagers=*/wagers != 0);
      const bool time_ok = s.deck_size >= params.min_deck_to_open || v.SelfPayingPoints(c) > 0;
      if (projected >= params.open_margin && time_ok) {
        const int gap = v.IsWagerIndex(i) ? 0 : v.GapCount(c, i);
        if (gap <= params.max_gap + 1) consider({1, gap, v.Value(i), MakeCard(c, i)});
      }
    }
  }
  if (have) return game.EncodeMove(Move::Play(SlotOf(s, best.card)));

  // Discard the card with the lowest keep value + danger.
  double best_cost = std::numeric_limits<double>::infinity();
  int best_slot = 0;
  for (int k = 0; k < s.hand_count; ++k) {
    const Card card = s.hand[k];
    const int c = CardColor(card);
    const int i = CardIndex(card);
    const int value = v.IsWagerIndex(i) ? 10 : v.Value(i);
    double keep = 0.0;
    if ((v.Playable(me, c) >> i) & 1) {
      if (v.Open(me, c)) {
        keep = 5.0 + value;
      } else if (v.ProjectedPoints(c, 0, false) > -5.0) {
        keep = 2.0 + 0.5 * value;
      } else {
        keep = 0.1 * value;
      }
    }
    double danger = 0.0;
    if ((v.Playable(opp, c) >> i) & 1) danger = v.Open(opp, c) ? value : 0.3 * value;
    const double cost = keep + danger;
    if (cost < best_cost) {
      best_cost = cost;
      best_slot = k;
    }
  }
  return game.EncodeMove(Move::Discard(best_slot));
}

int DrawDecision(const LostCities& game, const View& s, const HeuristicParams& params,
                 const Analysis& v) {
  const Rules& rules = game.rules();
  const int me = v.me();
  const ActionMask legal = game.LegalMask(s);
  int best_action = game.deck_action();
  double best_gain = 0.0;
  for (int c = 0; c < rules.colors; ++c) {
    const int action = game.pile_action(c);
    if (!((legal >> action) & 1)) continue;
    const int i = s.pile_top[c];
    if (!((v.Playable(me, c) >> i) & 1)) continue;
    double gain = 0.0;
    if (v.IsWagerIndex(i)) {
      if (v.WagerOk(c, 1u << i)) gain = 3.0;
    } else if (v.Open(me, c)) {
      // Live cards only: cards I hold below it are played first, so they are no gap.
      const int gap = v.GapCount(c, i);
      if (gap <= params.max_gap + 1) gain = 5.0 + v.Value(i);
    } else if (s.deck_size >= params.min_deck_to_open) {
      const double with = v.ProjectedPoints(c, 1u << i, false);
      const double without = v.ProjectedPoints(c, 0, false);
      if (with >= params.open_margin && with - without >= 3.0) gain = with - without;
    }
    if (gain > best_gain) {
      best_gain = gain;
      best_action = action;
    }
  }
  if (!((legal >> best_action) & 1)) return std::countr_zero(legal);  // defensive: no deck
  return best_action;
}

}  // namespace

int RandomBot::Act(const LostCities& game, const View& state, Rng& rng) {
  return PickUniform(game.LegalMask(state), rng);
}

double RandomBot::Probability(const LostCities& game, const State& state, int action) {
  const ActionMask legal = game.LegalMask(state);
  return (legal >> action) & 1 ? 1.0 / std::popcount(legal) : 0.0;
}

int DiscardOnlyBot::Act(const LostCities& game, const View& state, Rng& /*rng*/) {
  const ActionMask legal = game.LegalMask(state);
  if (state.phase == Phase::kCard) return game.EncodeMove(Move::Discard(0));  // always legal
  if ((legal >> game.deck_action()) & 1) return game.deck_action();
  return std::countr_zero(legal);
}

int HeuristicBot::Act(const LostCities& game, const View& state, Rng& rng) {
  if (params_.noise > 0.0 && rng.UniformDouble() < params_.noise) {
    return PickUniform(game.LegalMask(state), rng);
  }
  const Analysis view(game, state, params_);
  const int action = state.phase == Phase::kCard ? CardDecision(game, state, params_, view)
                                                 : DrawDecision(game, state, params_, view);
  LCFR_DCHECK((game.LegalMask(state) >> action) & 1) << "heuristic chose illegal " << action;
  return action;
}

double HeuristicBot::Probability(const LostCities& game, const State& state, int action) {
  const ActionMask legal = game.LegalMask(state);
  if (!((legal >> action) & 1)) return 0.0;
  const View view = game.MoverView(state);
  const Analysis analysis(game, view, params_);
  const int own = view.phase == Phase::kCard ? CardDecision(game, view, params_, analysis)
                                             : DrawDecision(game, view, params_, analysis);
  return (1 - params_.noise) * (own == action) + params_.noise / std::popcount(legal);
}

std::vector<std::string> BotNames() {
  return {"random",
          "discard-only",
          "heuristic-cautious",
          "heuristic-balanced",
          "heuristic-aggressive",
          "heuristic-noisy"};
}

absl::Status CheckPlayerRules(const Bot& player, const Rules& rules) {
  const std::optional<Rules> bound = player.BoundRules();
  return bound.has_value() ? CheckPlayerRules(*bound, rules) : absl::OkStatus();
}

absl::Status CheckPlayerRules(const Rules& bound, const Rules& rules) {
  if (bound == rules) return absl::OkStatus();
  return absl::InvalidArgumentError(StrCat("the rules (", ToString(rules),
                                           ") are not the player's (", ToString(bound),
                                           "): it plays only the rules it was built for"));
}

absl::StatusOr<std::unique_ptr<Bot>> MakeBot(std::string_view name) {
  if (name == "random") return std::make_unique<RandomBot>();
  if (name == "discard-only") return std::make_unique<DiscardOnlyBot>();
  // The presets; HeuristicParams' defaults are the balanced player.
  HeuristicParams p;
  if (name == "heuristic-cautious") {
    p.optimism = 0.7;
    p.wager_margin = 20;
    p.max_gap = 1;
    p.min_deck_to_open = 12;
  } else if (name == "heuristic-balanced" || name == "heuristic") {
    name = "heuristic-balanced";
  } else if (name == "heuristic-aggressive") {
    p.optimism = 1.1;
    p.open_margin = 0;
    p.wager_margin = 6;
    p.max_gap = 3;
    p.min_deck_to_open = 5;
  } else if (name == "heuristic-noisy") {
    p.noise = 0.15;
  } else {
    return absl::InvalidArgumentError(StrCat(
        "unknown bot '", name, "' (known: ", fmt::format("{}", fmt::join(BotNames(), ", ")), ")"));
  }
  return std::make_unique<HeuristicBot>(std::string(name), p);
}

}  // namespace lcfr::play
