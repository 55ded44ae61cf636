#include <catch2/catch.hpp>
#include <string>

#include "engine/lost_cities.h"

namespace lcfr::engine {
namespace {

std::string Message(const absl::Status& st) { return std::string(st.message()); }

TEST_CASE("rules: classic defaults are valid and give the documented sizes", "[rules]") {
  const Rules rules;
  REQUIRE(Validate(rules).ok());
  CHECK(rules.deck_size() == 60);
  CHECK(rules.num_actions() == 22);
  const LostCities game(rules);
  CHECK(game.EncodingSize() == 618);
}

TEST_CASE("rules: every out-of-range value names its key", "[rules]") {
  for (const RulesField& field : RulesFields()) {
    Rules rules;
    rules.*field.member = field.max + 1;
    const absl::Status st = Validate(rules);
    INFO(field.name);
    REQUIRE_FALSE(st.ok());
    CHECK(Message(st).find(field.name) != std::string::npos);
    rules.*field.member = field.min - 1;
    CHECK_FALSE(Validate(rules).ok());
  }
}

TEST_CASE("rules: the deck must deal both hands and leave a card", "[rules]") {
  Rules rules;
  rules.colors = 1;
  rules.ranks = 9;
  rules.wagers = 3;
  rules.hand_size = 6;  // 12 cards: 2 * 6 = 12 leaves none
  const absl::Status st = Validate(rules);
  REQUIRE_FALSE(st.ok());
  CHECK(Message(st).find("hand_size") != std::string::npos);
  rules.hand_size = 5;
  CHECK(Validate(rules).ok());
  rules.ranks = 14;  // 14 + 3 > 16 cards per color
  CHECK_FALSE(Validate(rules).ok());
  CHECK_FALSE(LostCities::Create(rules).ok());
}

TEST_CASE("rules: SetRulesField rejects unknown keys and lists the known ones", "[rules]") {
  Rules rules;
  const absl::Status st = SetRulesField(rules, "colours", 5);
  REQUIRE_FALSE(st.ok());
  CHECK(Message(st).find("colors") != std::string::npos);
  CHECK(SetRulesField(rules, "colors", 6).ok());
  CHECK(rules.colors == 6);
  CHECK(ToString(Rules{}).find("colors=5 ranks=9") == 0);
}

TEST_CASE("deal: explicit order, top = last, alternating, player 0 first", "[deal]") {
  const LostCities game;
  std::vector<Card> deck = game.SortedDeck();  // top (last element) is R10
  const absl::StatusOr<State> s = game.DealFromDeck(deck);
  REQUIRE(s.ok());
  // Last element (R10) goes to player 0, the one before (R9) to player 1, and so on.
  CHECK(s->hand[0][s->hand_count[0] - 1] == deck[59]);
  CHECK(s->hand[1][s->hand_count[1] - 1] == deck[58]);
  CHECK(s->hand_count[0] == 8);
  CHECK(s->hand_count[1] == 8);
  CHECK(s->deck_size == 44);
  CHECK(s->deck[43] == deck[43]);  // the next card drawn
  CHECK(s->player == 0);
  CHECK(game.CheckInvariants(*s).ok());

  deck.pop_back();
  CHECK_FALSE(game.DealFromDeck(deck).ok());
  deck.push_back(deck.front());
  const absl::StatusOr<State> dup = game.DealFromDeck(deck);
  REQUIRE_FALSE(dup.ok());
  CHECK(Message(dup.status()).find("twice") != std::string::npos);
}

TEST_CASE("deal: the same seed gives the same deal; pinned first cards", "[deal]") {
  const LostCities game;
  const State a = game.DealFromSeed(123);
  const State b = game.DealFromSeed(123);
  const State c = game.DealFromSeed(124);
  CHECK(a == b);
  CHECK_FALSE(a == c);
  CHECK(game.CheckInvariants(a).ok());
  // Pinned: the portable Rng makes this deal the same on every platform and compiler.
  std::vector<std::string> hand;
  for (int k = 0; k < a.hand_count[0]; ++k) hand.push_back(CardName(game.rules(), a.hand[0][k]));
  CHECK(hand == std::vector<std::string>{"Y*", "Y10", "B5", "B7", "W2", "W5", "W7", "G2"});
}

}  // namespace
}  // namespace lcfr::engine
