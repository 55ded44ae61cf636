#include "io/agent_protocol.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "base/check.h"
#include "base/json_bounds.h"
#include "base/strings.h"
#include "nlohmann/json.hpp"

namespace lcfr::io {

using engine::Card;
using engine::CardColor;
using engine::CardIndex;
using engine::CardName;
using engine::CardPool;
using engine::EmptyState;
using engine::IsWager;
using engine::kColorLetters;
using engine::kNoCard;
using engine::LostCities;
using engine::MakeCard;
using engine::Move;
using engine::ParseCard;
using engine::ParseColor;
using engine::Phase;
using engine::Rules;
using engine::RulesField;
using engine::RulesFields;
using engine::SampleWorld;
using engine::SampleWorldHistory;
using engine::SeenMove;
using engine::SetRulesField;
using engine::State;
using engine::WorldHistory;
using play::Bot;
namespace {

using Json = nlohmann::ordered_json;

template <typename What>
absl::Status Error(std::string_view key, const What& what) {
  return absl::InvalidArgumentError(StrCat(key, ": ", what));
}

// Reads an array of card names from j[key] (absent = empty) into `out`, taking ids from pool.
absl::Status ReadCards(const Json& j, const std::string& key, CardPool& pool,
                       std::vector<Card>& out) {
  if (!j.contains(key) || j[key].is_null()) return absl::OkStatus();
  const Json& arr = j[key];
  if (!arr.is_array()) return Error(key, "must be an array of card names");
  for (size_t i = 0; i < arr.size(); ++i) {
    if (!arr[i].is_string()) return Error(StrCat(key, "[", i, "]"), "must be a card name");
    absl::StatusOr<Card> card = pool.Take(arr[i].get<std::string>());
    if (!card.ok()) return Error(StrCat(key, "[", i, "]"), card.status().message());
    out.push_back(*card);
  }
  return absl::OkStatus();
}

Json CardList(const Rules& rules, uint32_t mask, int color) {
  Json arr = Json::array();
  for (uint32_t m = mask; m; m &= m - 1) {
    arr.push_back(CardName(rules, MakeCard(color, std::countr_zero(m))));
  }
  return arr;
}

// The observation of the player to move in `state` (ObservationToProtocol).
Json ObservationJson(const LostCities& game, const State& state) {
  const Rules& rules = game.rules();
  const int me = state.player;
  const int opp = 1 - me;
  Json j;
  Json r = Json::object();
  for (const RulesField& field : RulesFields()) r[field.name] = rules.*field.member;
  j["rules"] = r;
  j["decision"] = state.phase == Phase::kCard ? "card" : "draw";
  Json hand = Json::array();
  for (int k = 0; k < state.hand_count[me]; ++k) hand.push_back(CardName(rules, state.hand[me][k]));
  j["hand"] = hand;
  Json mine = Json::array();
  Json theirs = Json::array();
  Json known = Json::array();
  Json discards = Json::object();
  for (int c = 0; c < rules.colors; ++c) {
    for (const auto& card : CardList(rules, state.expedition[me][c], c)) mine.push_back(card);
    for (const auto& card : CardList(rules, state.expedition[opp][c], c)) theirs.push_back(card);
    for (const auto& card : CardList(rules, state.known[opp][c], c)) known.push_back(card);
    Json pile = Json::array();
    for (int k = 0; k < state.pile_size[c]; ++k) {
      pile.push_back(CardName(rules, MakeCard(c, state.pile[c][k])));
    }
    discards[std::string(1, kColorLetters[c])] = pile;
  }
  j["expeditions"] = {{"mine", mine}, {"opponent", theirs}};
  j["discards"] = discards;
  j["deck_size"] = state.deck_size;
  if (state.last_discard >= 0) {
    j["last_discard"] = std::string(1, kColorLetters[state.last_discard]);
  } else {
    j["last_discard"] = nullptr;
  }
  j["opponent_known"] = known;
  j["decisions"] = state.decisions;
  return j;
}

// Whether `card` is the card `named` stands for: itself, or for a wager any wager of its color.
bool SameCard(const Rules& rules, Card card, Card named) {
  return IsWager(rules, named) ? IsWager(rules, card) && CardColor(card) == CardColor(named)
                               : card == named;
}

// Reads "moves" into `moves`, seats relative to the acting player (0: "me", 1: "opponent"),
// each card as named (a wager: its color's first wager id; ResolveMoves gives it its own).
// Checks each entry's keys and the turns' order: a play or discard, then a draw, by the same
// player, the players alternating, the last turn leaving the acting player `phase`'s decision.
absl::Status ReadMoves(const Json& arr, const Rules& rules, Phase phase,
                       std::vector<SeenMove>& moves) {
  if (!arr.is_array()) return Error("moves", "must be an array of moves");
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string at = StrCat("moves[", i, "]");
    const Json& m = arr[i];
    if (!m.is_object()) {
      return Error(at, R"(must be an object such as {"by": "me", "play": "R7"})");
    }
    int kinds = 0;
    for (const auto& item : m.items()) {
      const std::string& key = item.key();
      if (key == "play" || key == "discard" || key == "draw") {
        ++kinds;
      } else if (key != "by" && key != "card") {
        return Error(StrCat(at, ".", key), "unknown key");
      }
    }
    if (kinds != 1) return Error(at, "needs exactly one of play, discard or draw");
    if (!m.contains("by") || !m["by"].is_string() ||
        (m["by"].get<std::string>() != "me" && m["by"].get<std::string>() != "opponent")) {
      return Error(StrCat(at, ".by"), R"(required: "me" or "opponent")");
    }
    SeenMove move;
    move.player = m["by"].get<std::string>() == "me" ? 0 : 1;
    const bool card_move = m.contains("play") || m.contains("discard");
    const std::string kind = card_move ? (m.contains("play") ? "play" : "discard") : "draw";
    if (!m[kind].is_string()) return Error(StrCat(at, ".", kind), "must be a string");
    const std::string value = m[kind].get<std::string>();
    // The turns: move i is turn i / 2's card move (even i) or draw (odd i); the first mover
    // plays the even turns.
    const int first = moves.empty() ? move.player : moves.front().player;
    const int turn_player = first ^ static_cast<int>((i / 2) & 1);
    if (card_move != (i % 2 == 0)) {
      return Error(at, StrCat("a turn is a play or discard, then a draw: this move must be ",
                              i % 2 == 0 ? "a play or a discard" : "a draw"));
    }
    if (move.player != turn_player) {
      return Error(StrCat(at, ".by"),
                   StrCat("the players take turns (a card move and a draw each): this move is ",
                          turn_player == 0 ? "\"me\"" : "\"opponent\"", "'s"));
    }
    const bool has_card = m.contains("card");
    if (has_card && !m["card"].is_string())
      return Error(StrCat(at, ".card"), "must be a card name");
    if (card_move) {
      if (has_card) {
        return Error(StrCat(at, ".card"),
                     StrCat("only a draw names its card here; a ", kind, " names it as its value"));
      }
      move.kind = kind == "play" ? Move::Kind::kPlay : Move::Kind::kDiscard;
      absl::StatusOr<Card> card = ParseCard(rules, value);
      if (!card.ok()) return Error(StrCat(at, ".", kind), card.status().message());
      move.card = *card;
    } else if (value == "deck") {
      move.kind = Move::Kind::kDrawDeck;
      if (move.player == 1 && has_card) {
        return Error(StrCat(at, ".card"),
                     "the opponent's deck draw is hidden from the player: leave the card out");
      }
      if (move.player == 0 && !has_card) {
        return Error(StrCat(at, ".card"),
                     "required: the card the player drew from the deck (it saw it)");
      }
    } else {
      move.kind = Move::Kind::kDrawPile;
      const int c = ParseColor(rules, value);
      if (c < 0) return Error(StrCat(at, ".draw"), "must be \"deck\" or a color letter");
      if (!has_card) return Error(StrCat(at, ".card"), "required: the card taken from the pile");
    }
    if (!card_move && has_card) {
      absl::StatusOr<Card> card = ParseCard(rules, m["card"].get<std::string>());
      if (!card.ok()) return Error(StrCat(at, ".card"), card.status().message());
      if (move.kind == Move::Kind::kDrawPile && CardColor(*card) != ParseColor(rules, value)) {
        return Error(StrCat(at, ".card"),
                     StrCat(CardName(rules, *card), " is not a card of the ", value, " pile"));
      }
      move.card = *card;
    }
    moves.push_back(move);
  }
  const size_t n = moves.size();
  if ((n % 2 == 0) != (phase == Phase::kCard)) {
    return Error("moves", StrCat(n, " moves leave a turn's ", n % 2 == 0 ? "card" : "draw",
                                 " decision next, not this ",
                                 phase == Phase::kCard ? "card" : "draw", " decision"));
  }
  if (n > 0 && (moves.front().player ^ static_cast<int>((n / 2) & 1)) != 0) {
    return Error("moves", "after these moves it is the opponent's turn, not the player's");
  }
  return absl::OkStatus();
}

// Gives each move's card its id in `s` (moves' seats already the state's), walking the game
// back from the position: a card played is taken off its expedition, a discard off its pile's
// top, a card drawn out of its drawer's hand (the mover's whole hand; the opponent's cards known
// from piles and those its later moves gave back). A wager, named by its color alone, takes one
// of its color's wagers there.
//
// Which of the opponent's wagers of a color it plays or discards, one it is known to hold (taken
// from a pile) or one it drew unseen, its moves do not say, and the engine keeps them apart
// (State::known). The position says how many it is known to hold at the end; the history takes
// the known one first, which leaves the opponent the most unseen cards at every deck draw, except
// at its last such moves where more must stay known to end with the position's count. Errors
// name the move whose card is not where the position and the later moves put it; the rest of the
// history's consistency SampleWorldHistory checks.
absl::Status ResolveMoves(const Rules& rules, const State& s, std::vector<SeenMove>& moves) {
  const int me = s.player, opp = 1 - me;
  const int n = static_cast<int>(moves.size());
  auto opponent_wager = [&](const SeenMove& m) {
    return m.player == opp && m.kind != Move::Kind::kDrawDeck && IsWager(rules, m.card);
  };
  // known_out[i]: the opponent's wager play or discard i gives up a wager it is known to hold.
  std::vector<char> known_out(n, 0);
  for (int c = 0; c < rules.colors; ++c) {
    const int known_end =
        std::popcount(static_cast<uint32_t>(s.known[opp][c] & ((1u << rules.wagers) - 1)));
    int known = 0;
    std::vector<int> outs;  // the moves that give up a known one, in order
    for (int i = 0; i < n; ++i) {
      const SeenMove& m = moves[i];
      if (!opponent_wager(m) || CardColor(m.card) != c) continue;
      if (m.kind == Move::Kind::kDrawPile) {
        ++known;
      } else if (known > 0) {
        --known;
        known_out[i] = 1;
        outs.push_back(i);
      }
    }
    if (known_end < known) {
      return Error("opponent_known", StrCat("names ", known_end, " ", kColorLetters[c],
                                            " wagers; the moves leave "
                                            "the opponent known to hold at least ",
                                            known));
    }
    const int keep = known_end - known;  // the last `keep` of `outs` give up unseen ones instead
    if (keep > static_cast<int>(outs.size())) {
      return Error("opponent_known", StrCat("names ", known_end, " ", kColorLetters[c],
                                            " wagers; the moves leave "
                                            "the opponent known to hold at most ",
                                            known + outs.size()));
    }
    for (int k = 0; k < keep; ++k) known_out[outs[outs.size() - 1 - k]] = 0;
  }
  // held[p]: the cards known to be in p's hand, each with whether a pile draw before must have
  // given it (the opponent's known cards of the position, and the known ones it gave up).
  std::vector<std::pair<Card, bool>> held[2];
  for (int k = 0; k < s.hand_count[me]; ++k) held[me].emplace_back(s.hand[me][k], false);
  for (int k = 0; k < s.hand_count[opp]; ++k) {
    const Card card = s.hand[opp][k];
    if ((s.known[opp][CardColor(card)] >> CardIndex(card)) & 1) held[opp].emplace_back(card, true);
  }
  auto expedition = s.expedition;
  auto pile = s.pile;
  auto pile_size = s.pile_size;
  const int per_color = rules.cards_per_color();
  for (int i = n - 1; i >= 0; --i) {
    SeenMove& m = moves[i];
    const std::string at = StrCat("moves[", i, "]");
    const std::string whose = m.player == me ? "the player's" : "the opponent's";
    if (m.kind == Move::Kind::kDrawDeck && m.player == opp) continue;  // a card not seen
    const int c = CardColor(m.card);
    const std::string name = CardName(rules, m.card);
    auto& hand = held[m.player];
    switch (m.kind) {
      case Move::Kind::kPlay: {
        int index = -1;
        for (int k = 0; k < per_color && index < 0; ++k) {
          if (((expedition[m.player][c] >> k) & 1) && SameCard(rules, MakeCard(c, k), m.card)) {
            index = k;
          }
        }
        if (index < 0) {
          return Error(at,
                       StrCat(name, " is not in ", whose, " expedition, where this play put it"));
        }
        expedition[m.player][c] &= static_cast<uint16_t>(~(1u << index));
        m.card = MakeCard(c, index);
        hand.emplace_back(m.card, known_out[i] != 0);
        break;
      }
      case Move::Kind::kDiscard: {
        if (pile_size[c] == 0 || !SameCard(rules, MakeCard(c, pile[c][pile_size[c] - 1]), m.card)) {
          return Error(at, StrCat(name,
                                  " is not the top of its discard pile, where this discard "
                                  "put it (the later moves taken back)"));
        }
        m.card = MakeCard(c, pile[c][--pile_size[c]]);
        hand.emplace_back(m.card, known_out[i] != 0);
        break;
      }
      case Move::Kind::kDrawPile:
      case Move::Kind::kDrawDeck: {
        // The opponent's wager taken from a pile: one that must have come from a pile.
        const bool from_pile = opponent_wager(m);
        const auto pick = std::find_if(hand.begin(), hand.end(), [&](const auto& held_card) {
          return SameCard(rules, held_card.first, m.card) && (!from_pile || held_card.second);
        });
        if (pick == hand.end()) {
          return Error(at, StrCat(name, " is not in ", whose,
                                  " hand, where this draw put it (the later moves taken back)"));
        }
        m.card = pick->first;
        hand.erase(pick);
        if (m.kind == Move::Kind::kDrawPile) {
          if (pile_size[c] >= per_color)
            return Error(at, "more cards on a pile than its color has");
          pile[c][pile_size[c]++] = static_cast<uint8_t>(CardIndex(m.card));
        }
        break;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Observation> ParseObservation(std::string_view line, Rng& rng) {
  if (absl::Status s = CheckJsonBounds(line, kMaxProtocolLineBytes); !s.ok()) return s;
  const Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError("expected one JSON object per line");
  }
  static constexpr const char* kKeys[] = {
      "rules",     "decision",     "hand",           "expeditions", "discards",
      "deck_size", "last_discard", "opponent_known", "decisions",   "moves"};
  for (const auto& item : j.items()) {
    const std::string& key = item.key();
    if (std::none_of(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return key == k; })) {
      return Error(key, "unknown key");
    }
  }
  Observation obs;
  Rules& rules = obs.rules;
  if (j.contains("rules")) {
    if (!j["rules"].is_object()) return Error("rules", "must be an object");
    for (const auto& [key, value] : j["rules"].items()) {
      if (!value.is_number_integer()) return Error("rules." + key, "must be an integer");
      if (value.is_number_unsigned() && SaturatedInteger(value) == LLONG_MAX) {
        return Error("rules." + key, StrCat(value.dump(), " is out of range"));
      }
      if (absl::Status st = SetRulesField(rules, key, SaturatedInteger(value)); !st.ok()) {
        return st;
      }
    }
    if (absl::Status st = Validate(rules); !st.ok()) return st;
  }
  const LostCities game(rules);
  const int h = rules.hand_size;

  State& s = obs.state;
  s = EmptyState();

  if (!j.contains("decision") || !j["decision"].is_string()) {
    return Error("decision", "required: \"card\" or \"draw\"");
  }
  const std::string decision = j["decision"].get<std::string>();
  if (decision != "card" && decision != "draw") {
    return Error("decision", "must be \"card\" or \"draw\"");
  }
  s.phase = decision == "card" ? Phase::kCard : Phase::kDraw;

  // The seats: the acting player's is 0, or with moves its seat in the game (the first mover's
  // is 0).
  obs.has_moves = j.contains("moves") && !j["moves"].is_null();
  if (obs.has_moves) {
    if (absl::Status st = ReadMoves(j["moves"], rules, s.phase, obs.moves); !st.ok()) return st;
  }
  const int me = !obs.moves.empty() && obs.moves.front().player == 1 ? 1 : 0;
  const int opp = 1 - me;
  s.player = static_cast<uint8_t>(me);
  for (SeenMove& m : obs.moves) m.player = static_cast<uint8_t>(m.player == 0 ? me : opp);

  CardPool pool(rules);
  std::vector<Card> hand;
  if (absl::Status st = ReadCards(j, "hand", pool, hand); !st.ok()) return st;
  const int want = s.phase == Phase::kCard ? h : h - 1;
  if (static_cast<int>(hand.size()) != want) {
    return Error("hand",
                 StrCat("holds ", hand.size(), " cards; a ", decision, " decision needs ", want));
  }
  std::sort(hand.begin(), hand.end());
  std::copy(hand.begin(), hand.end(), s.hand[me].begin());
  s.hand_count[me] = static_cast<uint8_t>(hand.size());

  if (j.contains("expeditions")) {
    const Json& e = j["expeditions"];
    if (!e.is_object())
      return Error("expeditions", "must be {\"mine\": [...], \"opponent\": [...]}");
    for (const auto& [key, value] : e.items()) {
      if (key != "mine" && key != "opponent") return Error("expeditions." + key, "unknown key");
    }
    for (int who = 0; who < 2; ++who) {
      const char* key = who == 0 ? "mine" : "opponent";
      std::vector<Card> cards;
      if (absl::Status st = ReadCards(e, key, pool, cards); !st.ok()) {
        return Error("expeditions", st.message());
      }
      const int seat = who == 0 ? me : opp;
      for (Card card : cards) {
        s.expedition[seat][CardColor(card)] |= static_cast<uint16_t>(1u << CardIndex(card));
      }
    }
  }

  if (j.contains("discards")) {
    const Json& d = j["discards"];
    if (!d.is_object()) return Error("discards", "must map color letters to card arrays");
    for (const auto& [key, value] : d.items()) {
      const int c = ParseColor(rules, key);
      if (c < 0) return Error("discards." + key, "not a color letter of these rules");
      std::vector<Card> cards;
      if (absl::Status st = ReadCards(d, key, pool, cards); !st.ok()) {
        return Error("discards", st.message());
      }
      for (Card card : cards) {
        if (CardColor(card) != c) {
          return Error("discards." + key, StrCat(CardName(rules, card), " is another color"));
        }
        s.pile[c][s.pile_size[c]++] = static_cast<uint8_t>(CardIndex(card));
      }
    }
  }

  std::vector<Card> known;
  if (absl::Status st = ReadCards(j, "opponent_known", pool, known); !st.ok()) return st;
  if (static_cast<int>(known.size()) > h) {
    return Error("opponent_known", StrCat("more than hand_size = ", h, " cards"));
  }

  if (!j.contains("deck_size") || !j["deck_size"].is_number_integer()) {
    return Error("deck_size", "required: the number of cards left in the deck");
  }
  const long long deck_size = SaturatedInteger(j["deck_size"]);
  if (deck_size < 1) return Error("deck_size", "must be at least 1 (the game is not over)");
  if (deck_size > rules.deck_size()) {
    return Error("deck_size", StrCat(j["deck_size"].dump(), " is more than the ", rules.deck_size(),
                                     " cards of the whole deck"));
  }

  if (j.contains("last_discard") && !j["last_discard"].is_null()) {
    if (s.phase != Phase::kDraw) {
      return Error("last_discard", "only a draw decision follows a discard in the same turn");
    }
    if (!j["last_discard"].is_string()) return Error("last_discard", "must be a color letter");
    const int c = ParseColor(rules, j["last_discard"].get<std::string>());
    if (c < 0) return Error("last_discard", "not a color letter of these rules");
    if (s.pile_size[c] == 0) return Error("last_discard", "that discard pile is empty");
    s.last_discard = static_cast<int8_t>(c);
  }
  if (obs.has_moves && s.phase == Phase::kDraw) {
    // The turn's card move says where it discarded, if it did.
    const SeenMove& last = obs.moves.back();
    const int c = last.kind == Move::Kind::kDiscard ? CardColor(last.card) : -1;
    if (s.last_discard >= 0 && s.last_discard != c) {
      return Error("last_discard",
                   c < 0 ? "the turn's card move (moves) was a play"
                         : StrCat("the turn's card move (moves) discarded to ", kColorLetters[c]));
    }
    if (c >= 0 && s.pile_size[c] == 0) {
      return Error("moves", StrCat("the turn's discard went to the ", kColorLetters[c],
                                   " pile, which is empty"));
    }
    s.last_discard = static_cast<int8_t>(c);
  }

  if (j.contains("decisions")) {
    if (!j["decisions"].is_number_integer()) return Error("decisions", "must be an integer");
    const long long decisions = SaturatedInteger(j["decisions"]);
    if (decisions < 0 || decisions >= rules.max_decisions) {
      return Error("decisions",
                   StrCat("must be in [0, max_decisions = ", rules.max_decisions, ")"));
    }
    if (obs.has_moves && decisions != static_cast<long long>(obs.moves.size())) {
      return Error("moves", StrCat("holds ", obs.moves.size(),
                                   " moves, one per decision, and "
                                   "decisions says ",
                                   decisions));
    }
    s.decisions = static_cast<uint16_t>(decisions);
  } else if (obs.has_moves) {
    if (static_cast<long long>(obs.moves.size()) >= rules.max_decisions) {
      return Error("moves", StrCat("holds ", obs.moves.size(),
                                   " moves; a game not over has "
                                   "fewer than max_decisions = ",
                                   rules.max_decisions));
    }
    s.decisions = static_cast<uint16_t>(obs.moves.size());
  }

  // The unseen cards go to the opponent's unknown hand slots and the deck, in order here; once the
  // position is checked, SampleWorld deals them anew.
  std::vector<Card> unseen;
  for (Card card : game.SortedDeck()) {
    if (!pool.Used(card)) unseen.push_back(card);
  }
  const int opp_unknown = h - static_cast<int>(known.size());
  if (static_cast<long long>(unseen.size()) != opp_unknown + deck_size) {
    return Error("deck_size", StrCat(j["deck_size"].dump(), " does not add up: ", unseen.size(),
                                     " cards are unaccounted for, and the opponent's ", opp_unknown,
                                     " unknown cards plus the deck must be exactly those"));
  }
  std::vector<Card> opp_hand = known;
  opp_hand.insert(opp_hand.end(), unseen.begin(), unseen.begin() + opp_unknown);
  std::sort(opp_hand.begin(), opp_hand.end());
  std::copy(opp_hand.begin(), opp_hand.end(), s.hand[opp].begin());
  s.hand_count[opp] = static_cast<uint8_t>(h);
  for (Card card : known) {
    s.known[opp][CardColor(card)] |= static_cast<uint16_t>(1u << CardIndex(card));
  }
  std::copy(unseen.begin() + opp_unknown, unseen.end(), s.deck.begin());
  s.deck_size = static_cast<uint8_t>(deck_size);

  game.RefreshCaches(s);
  if (absl::Status st = game.CheckInvariants(s); !st.ok()) {
    return absl::InvalidArgumentError(StrCat("inconsistent observation: ", st.message()));
  }
  if (game.LegalMask(s) == 0) return absl::InvalidArgumentError("no legal action in this position");
  s = SampleWorld(game, s, rng);
  if (obs.has_moves) {
    if (absl::Status st = ResolveMoves(rules, s, obs.moves); !st.ok()) return st;
    // The player's own cards that its opponent knows of: those it took from a pile and holds.
    for (const SeenMove& m : obs.moves) {
      if (m.player != me || m.kind == Move::Kind::kDrawDeck) continue;
      const auto bit = static_cast<uint16_t>(1u << CardIndex(m.card));
      uint16_t& known_mine = s.known[me][CardColor(m.card)];
      known_mine = m.kind == Move::Kind::kDrawPile ? known_mine | bit : known_mine & ~bit;
    }
    if (absl::Status st = game.CheckInvariants(s); !st.ok()) {
      return Error("moves", StrCat("do not fit this position: ", st.message()));
    }
    Rng any(0);  // the history's own checks do not depend on the game drawn
    const absl::StatusOr<WorldHistory> world = SampleWorldHistory(game, s, obs.moves, any);
    if (!world.ok()) {
      return Error("moves", StrCat("do not lead to this position: ", world.status().message()));
    }
  }
  return obs;
}

std::string ActionToProtocol(const LostCities& game, const State& state, int action) {
  const Rules& rules = game.rules();
  const Move move = game.DecodeAction(action);
  Json j;
  if (move.is_card()) {
    j[move.kind == Move::Kind::kDiscard ? "discard" : "play"] =
        CardName(rules, state.hand[state.player][move.index]);
  } else if (move.kind == Move::Kind::kDrawDeck) {
    j["draw"] = "deck";
  } else {
    j["draw"] = std::string(1, kColorLetters[move.index]);
  }
  return j.dump();
}

absl::StatusOr<int> ActionFromProtocol(const LostCities& game, const State& state,
                                       std::string_view json_text) {
  if (absl::Status s = CheckJsonBounds(json_text, kMaxProtocolLineBytes); !s.ok()) return s;
  const Json j = Json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || j.size() != 1) {
    return absl::InvalidArgumentError(
        "expected one JSON object with one key: play, discard or draw");
  }
  const Rules& rules = game.rules();
  const std::string key = j.begin().key();
  const Json& value = j.begin().value();
  if (!value.is_string()) return Error(key, "must be a string");
  const std::string name = value.get<std::string>();
  int action = -1;
  if (key == "play" || key == "discard") {
    // A wager names any wager of its color in hand.
    absl::StatusOr<Card> card = ParseCard(rules, name);
    if (!card.ok()) return Error(key, card.status().message());
    for (int k = 0; k < state.hand_count[state.player]; ++k) {
      const Card held = state.hand[state.player][k];
      const bool same = IsWager(rules, *card)
                            ? IsWager(rules, held) && CardColor(held) == CardColor(*card)
                            : held == *card;
      if (same) {
        action = game.EncodeMove(key == "discard" ? Move::Discard(k) : Move::Play(k));
        break;
      }
    }
    if (action < 0) return Error(key, StrCat(name, " is not in the hand"));
  } else if (key == "draw") {
    if (name == "deck") {
      action = game.deck_action();
    } else {
      const int c = ParseColor(rules, name);
      if (c < 0) return Error("draw", "must be \"deck\" or a color letter");
      action = game.pile_action(c);
    }
  } else {
    return Error(key, "unknown action kind (expected play, discard or draw)");
  }
  if (!((game.LegalMask(state) >> action) & 1)) {
    State copy = state;
    return game.ApplyChecked(copy, action);  // an error that says why
  }
  return action;
}

std::string ObservationToProtocol(const LostCities& game, const State& state,
                                  std::span<const SeenMove> seen) {
  Json j = ObservationJson(game, state);
  const Rules& rules = game.rules();
  Json moves = Json::array();
  for (const SeenMove& m : seen) {
    Json move;
    move["by"] = m.player == state.player ? "me" : "opponent";
    switch (m.kind) {
      case Move::Kind::kPlay:
        move["play"] = CardName(rules, m.card);
        break;
      case Move::Kind::kDiscard:
        move["discard"] = CardName(rules, m.card);
        break;
      case Move::Kind::kDrawDeck:
        move["draw"] = "deck";
        if (m.card != kNoCard) move["card"] = CardName(rules, m.card);
        break;
      case Move::Kind::kDrawPile:
        move["draw"] = std::string(1, kColorLetters[CardColor(m.card)]);
        move["card"] = CardName(rules, m.card);
        break;
    }
    moves.push_back(move);
  }
  j["moves"] = moves;
  return j.dump();
}

void TellHistory(const LostCities& game, const Observation& obs, Bot& bot) {
  bot.Forget();
  if (!obs.has_moves) return;
  Rng any(0);  // what the bot keeps is what its seat saw, the same in every game drawn
  const absl::StatusOr<WorldHistory> world = SampleWorldHistory(game, obs.state, obs.moves, any);
  LCFR_CHECK(world.ok()) << "TellHistory: moves that ParseObservation did not check: "
                         << world.status().message();
  State t = world->deal;
  for (const int action : world->actions) {
    bot.Observe(game, t, action, obs.state.player);
    game.ApplyUnchecked(t, action);
  }
}

std::string ObservationToProtocol(const LostCities& game, const State& state) {
  return ObservationJson(game, state).dump();
}

}  // namespace lcfr::io
