#include "io/record.h"

#include "base/json_bounds.h"
#include "base/strings.h"
#include "nlohmann/json.hpp"

namespace lcfr::io {

using engine::Card;
using engine::CardName;
using engine::CardPool;
using engine::EndReason;
using engine::LostCities;
using engine::Phase;
using engine::Rules;
using engine::RulesField;
using engine::RulesFields;
using engine::SetRulesField;
using engine::State;
namespace {

using Json = nlohmann::ordered_json;

absl::Status RulesFromJson(const Json& j, Rules& rules) {
  if (!j.is_object()) return absl::InvalidArgumentError("\"rules\" must be an object");
  for (const auto& [key, value] : j.items()) {
    if (!value.is_number_integer()) {
      return absl::InvalidArgumentError(
          StrCat("rules.", key, " must be an integer, got ", value.dump()));
    }
    if (value.is_number_unsigned() && SaturatedInteger(value) == LLONG_MAX) {
      return absl::InvalidArgumentError(
          StrCat("rules.", key, " = ", value.dump(), " is out of range"));
    }
    if (absl::Status st = SetRulesField(rules, key, SaturatedInteger(value)); !st.ok()) return st;
  }
  return Validate(rules);
}

}  // namespace

absl::StatusOr<GameRecord> ParseRecord(std::string_view json_text) {
  if (absl::Status s = CheckJsonBounds(json_text); !s.ok()) {
    return absl::InvalidArgumentError(StrCat("not valid JSON: ", s.message()));
  }
  Json j;
  try {
    j = Json::parse(json_text);
  } catch (const Json::exception& e) {  // parse_error, and out_of_range for a number overflow
    return absl::InvalidArgumentError(StrCat("not valid JSON: ", e.what()));
  }
  if (!j.is_object()) return absl::InvalidArgumentError("a record must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (key != "rules" && key != "deck" && key != "actions") {
      return absl::InvalidArgumentError(
          StrCat("unknown key '", key, "' (expected rules, deck, actions)"));
    }
  }
  GameRecord record;
  if (j.contains("rules")) {
    if (absl::Status st = RulesFromJson(j["rules"], record.rules); !st.ok()) return st;
  }
  if (!j.contains("deck")) {
    return absl::InvalidArgumentError("missing \"deck\": an array of card names");
  }
  if (!j["deck"].is_array()) {
    return absl::InvalidArgumentError(
        StrCat("\"deck\" must be an array of card names, got ", j["deck"].type_name()));
  }
  CardPool pool(record.rules);
  const Json& deck = j["deck"];
  for (size_t i = 0; i < deck.size(); ++i) {
    if (!deck[i].is_string()) {
      return absl::InvalidArgumentError(StrCat("deck[", i, "] must be a card name string"));
    }
    absl::StatusOr<Card> card = pool.Take(deck[i].get<std::string>());
    if (!card.ok()) {
      return absl::InvalidArgumentError(StrCat("deck[", i, "]: ", card.status().message()));
    }
    record.deck.push_back(*card);
  }
  if (static_cast<int>(record.deck.size()) != record.rules.deck_size()) {
    return absl::InvalidArgumentError(StrCat("deck has ", record.deck.size(),
                                             " cards; the rules need ", record.rules.deck_size()));
  }
  if (!j.contains("actions")) {
    return absl::InvalidArgumentError("missing \"actions\": an array of action ids");
  }
  if (!j["actions"].is_array()) {
    return absl::InvalidArgumentError(
        StrCat("\"actions\" must be an array of action ids, got ", j["actions"].type_name()));
  }
  const Json& actions = j["actions"];
  for (size_t i = 0; i < actions.size(); ++i) {
    if (!actions[i].is_number_integer()) {
      return absl::InvalidArgumentError(StrCat("actions[", i, "] must be an integer"));
    }
    const long long a = SaturatedInteger(actions[i]);
    if (a < 0 || a >= record.rules.num_actions()) {
      return absl::InvalidArgumentError(StrCat("actions[", i, "] = ", actions[i].dump(),
                                               " is out of range [0, ", record.rules.num_actions(),
                                               ")"));
    }
    record.actions.push_back(static_cast<int>(a));
  }
  return record;
}

std::string RecordToJson(const GameRecord& record) {
  Json j;
  Json rules = Json::object();
  for (const RulesField& field : RulesFields()) rules[field.name] = record.rules.*field.member;
  j["rules"] = rules;
  Json deck = Json::array();
  for (Card card : record.deck) deck.push_back(CardName(record.rules, card));
  j["deck"] = deck;
  j["actions"] = record.actions;
  return j.dump();
}

absl::StatusOr<std::string> ReplayLog(const GameRecord& record) {
  absl::StatusOr<LostCities> game = LostCities::Create(record.rules);
  if (!game.ok()) return game.status();
  absl::StatusOr<State> state = game->DealFromDeck(record.deck);
  if (!state.ok()) return state.status();
  State& s = *state;
  std::string log;
  for (size_t step = 0; step < record.actions.size(); ++step) {
    const int action = record.actions[step];
    Json line;
    line["step"] = step;
    line["player"] = s.player;
    line["decision"] = s.phase == Phase::kCard ? "card" : "draw";
    Json hand = Json::array();
    for (int k = 0; k < s.hand_count[s.player]; ++k) {
      hand.push_back(CardName(record.rules, s.hand[s.player][k]));
    }
    line["hand"] = hand;
    line["legal"] = game->LegalActions(s);
    line["action"] = action;
    line["move"] = game->ActionName(s, action);
    if (absl::Status st = game->ApplyChecked(s, action); !st.ok()) {
      return absl::InvalidArgumentError(StrCat("actions[", step, "]: ", st.message()));
    }
    line["scores"] = {s.score[0], s.score[1]};
    StrAppend(&log, line.dump(), "\n");
  }
  Json final_line;
  final_line["final"] = true;
  final_line["scores"] = {s.score[0], s.score[1]};
  const int diff = s.score[0] - s.score[1];
  if (diff == 0) {
    final_line["winner"] = nullptr;
  } else {
    final_line["winner"] = diff > 0 ? 0 : 1;
  }
  final_line["end"] = LostCities::IsTerminal(s) ? EndReasonName(s.end) : "unfinished";
  final_line["decisions"] = s.decisions;
  final_line["capped"] = s.end == EndReason::kDecisionCap;
  StrAppend(&log, final_line.dump(), "\n");
  return log;
}

}  // namespace lcfr::io
