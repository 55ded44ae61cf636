#include "engine/agent_protocol.h"

#include <algorithm>
#include <cstring>

#include "engine/json_bounds.h"
#include "engine/strings.h"
#include "nlohmann/json.hpp"

namespace lcfr::engine {
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

}  // namespace

absl::StatusOr<Observation> ParseObservation(std::string_view line, Rng& rng) {
  if (absl::Status s = CheckJsonBounds(line, kMaxProtocolLineBytes); !s.ok()) return s;
  const Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError("expected one JSON object per line");
  }
  static constexpr const char* kKeys[] = {"rules",        "decision",       "hand",
                                          "expeditions",  "discards",       "deck_size",
                                          "last_discard", "opponent_known", "decisions"};
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
  s = EmptyState();  // the acting player is seat 0

  if (!j.contains("decision") || !j["decision"].is_string()) {
    return Error("decision", "required: \"card\" or \"draw\"");
  }
  const std::string decision = j["decision"].get<std::string>();
  if (decision != "card" && decision != "draw") {
    return Error("decision", "must be \"card\" or \"draw\"");
  }
  s.phase = decision == "card" ? Phase::kCard : Phase::kDraw;

  CardPool pool(rules);
  std::vector<Card> hand;
  if (absl::Status st = ReadCards(j, "hand", pool, hand); !st.ok()) return st;
  const int want = s.phase == Phase::kCard ? h : h - 1;
  if (static_cast<int>(hand.size()) != want) {
    return Error("hand",
                 StrCat("holds ", hand.size(), " cards; a ", decision, " decision needs ", want));
  }
  std::sort(hand.begin(), hand.end());
  std::copy(hand.begin(), hand.end(), s.hand[0].begin());
  s.hand_count[0] = static_cast<uint8_t>(hand.size());

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
      for (Card card : cards) {
        s.expedition[who][CardColor(card)] |= static_cast<uint16_t>(1u << CardIndex(card));
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

  if (j.contains("decisions")) {
    if (!j["decisions"].is_number_integer()) return Error("decisions", "must be an integer");
    const long long decisions = SaturatedInteger(j["decisions"]);
    if (decisions < 0 || decisions >= rules.max_decisions) {
      return Error("decisions",
                   StrCat("must be in [0, max_decisions = ", rules.max_decisions, ")"));
    }
    s.decisions = static_cast<uint16_t>(decisions);
  }

  // The unseen cards go, shuffled, to the opponent's unknown hand slots and the deck.
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
  for (size_t i = unseen.size(); i > 1; --i) {
    std::swap(unseen[i - 1], unseen[rng.Uniform(static_cast<uint32_t>(i))]);
  }
  std::vector<Card> opp_hand = known;
  opp_hand.insert(opp_hand.end(), unseen.begin(), unseen.begin() + opp_unknown);
  std::sort(opp_hand.begin(), opp_hand.end());
  std::copy(opp_hand.begin(), opp_hand.end(), s.hand[1].begin());
  s.hand_count[1] = static_cast<uint8_t>(h);
  for (Card card : known) {
    s.known[1][CardColor(card)] |= static_cast<uint16_t>(1u << CardIndex(card));
  }
  std::copy(unseen.begin() + opp_unknown, unseen.end(), s.deck.begin());
  s.deck_size = static_cast<uint8_t>(deck_size);

  game.RefreshCaches(s);
  if (absl::Status st = game.CheckInvariants(s); !st.ok()) {
    return absl::InvalidArgumentError(StrCat("inconsistent observation: ", st.message()));
  }
  if (game.LegalMask(s) == 0) return absl::InvalidArgumentError("no legal action in this position");
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

std::string ObservationToProtocol(const LostCities& game, const State& state) {
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
  return j.dump();
}

}  // namespace lcfr::engine
