#include "io/record.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "base/json_bounds.h"
#include "play/bots.h"

namespace lcfr::io {

using engine::Card;
using engine::CardName;
using engine::LostCities;
using engine::Rules;
using engine::State;
using play::Bot;
using play::MakeBot;
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> Names(const std::vector<Card>& cards) {
  std::vector<std::string> names;
  for (Card card : cards) names.push_back(CardName(Rules{}, card));
  return names;
}

const std::string kGoldenDir = std::string(LCFR_SOURCE_DIR) + "/tests/golden/";

// The golden game: seed 7, heuristic-balanced (seat 0) against heuristic-noisy (seat 1).
GameRecord MakeGoldenRecord() {
  GameRecord record;
  const LostCities game(record.rules);
  Rng deal_rng(7);
  record.deck = game.ShuffledDeck(deal_rng);
  State s = *game.DealFromDeck(record.deck);
  auto a = *MakeBot("heuristic-balanced");
  auto b = *MakeBot("heuristic-noisy");
  Bot* bots[2] = {a.get(), b.get()};
  Rng rng(8);
  while (!LostCities::IsTerminal(s)) {
    const int action = bots[s.player]->Act(game, game.MoverView(s), rng);
    record.actions.push_back(action);
    game.ApplyUnchecked(s, action);
  }
  return record;
}

TEST_CASE("golden: a fixed-seed game replays to the checked-in log", "[golden]") {
  const GameRecord fresh = MakeGoldenRecord();
  if (std::getenv("LCFR_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(kGoldenDir + "game_seed7.json") << RecordToJson(fresh) << "\n";
    std::ofstream(kGoldenDir + "game_seed7.replay.jsonl") << *ReplayLog(fresh);
  }
  const absl::StatusOr<GameRecord> record = ParseRecord(ReadFile(kGoldenDir + "game_seed7.json"));
  REQUIRE(record.ok());
  // The record is what the engine, the seeded deal and the bots produce today (cards compared
  // by name: a parser numbers interchangeable wagers in order of appearance)...
  CHECK(Names(record->deck) == Names(fresh.deck));
  CHECK(record->actions == fresh.actions);
  // ...and its replay log is byte-for-byte the checked-in one.
  const absl::StatusOr<std::string> log = ReplayLog(*record);
  REQUIRE(log.ok());
  CHECK(*log == ReadFile(kGoldenDir + "game_seed7.replay.jsonl"));
}

TEST_CASE("records: round trip through JSON", "[record]") {
  const GameRecord record = MakeGoldenRecord();
  const absl::StatusOr<GameRecord> back = ParseRecord(RecordToJson(record));
  REQUIRE(back.ok());
  CHECK(back->rules == record.rules);
  CHECK(Names(back->deck) == Names(record.deck));
  CHECK(back->actions == record.actions);
}

std::string ErrorOf(const std::string& json) {
  const absl::StatusOr<GameRecord> record = ParseRecord(json);
  if (!record.ok()) return std::string(record.status().message());
  const absl::StatusOr<std::string> log = ReplayLog(*record);
  return log.ok() ? "" : std::string(log.status().message());
}

TEST_CASE("records: malformed input is rejected with the place named", "[record]") {
  const GameRecord good = MakeGoldenRecord();
  std::string json = RecordToJson(good);
  CHECK(ErrorOf(json).empty());
  CHECK(ErrorOf("{").find("not valid JSON") != std::string::npos);
  CHECK(ErrorOf("[1,2]").find("JSON object") != std::string::npos);
  CHECK(ErrorOf(R"({"deck": [], "actions": [], "extra": 1})").find("unknown key 'extra'") !=
        std::string::npos);
  CHECK(ErrorOf(R"({"rules": {"colors": 9}, "deck": [], "actions": []})").find("rules.colors") !=
        std::string::npos);
  CHECK(ErrorOf(R"({"rules": {"colour": 5}, "deck": [], "actions": []})")
            .find("unknown rules key 'colour'") != std::string::npos);
  CHECK(ErrorOf(R"({"deck": ["R7", "R7"], "actions": []})").find("deck[1]") != std::string::npos);
  CHECK(ErrorOf(R"({"deck": ["Q7"], "actions": []})").find("deck[0]") != std::string::npos);
  CHECK(ErrorOf(R"({"deck": ["R7"], "actions": []})").find("the rules need 60") !=
        std::string::npos);

  // An illegal action names its step. Action 16 (draw deck) is illegal at step 0.
  GameRecord bad = good;
  bad.actions.insert(bad.actions.begin(), 16);
  const std::string err = ErrorOf(RecordToJson(bad));
  CHECK(err.find("actions[0]") != std::string::npos);
  CHECK(err.find("card decision") != std::string::npos);
  bad = good;
  bad.actions.push_back(16);  // after the end
  CHECK(ErrorOf(RecordToJson(bad)).find("game is over") != std::string::npos);
  bad = good;
  bad.actions[5] = 99;
  CHECK(ErrorOf(RecordToJson(bad)).find("actions[5] = 99 is out of range") != std::string::npos);
}

TEST_CASE("records: an unfinished record replays with end = unfinished", "[record]") {
  GameRecord record = MakeGoldenRecord();
  record.actions.resize(10);
  const absl::StatusOr<std::string> log = ReplayLog(record);
  REQUIRE(log.ok());
  CHECK(log->find("\"end\":\"unfinished\"") != std::string::npos);
}

TEST_CASE("json bounds: deep nesting and long text are refused before parsing", "[record]") {
  auto nested = [](int depth, std::string_view inner) {
    return std::string(static_cast<size_t>(depth), '[') + std::string(inner) +
           std::string(static_cast<size_t>(depth), ']');
  };
  CHECK(CheckJsonBounds(nested(kMaxJsonDepth, "1")).ok());
  const absl::Status deep = CheckJsonBounds(nested(kMaxJsonDepth + 1, "1"));
  CHECK(deep.code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(deep.message()).find("nested deeper than 64 levels (at byte 64)") !=
        std::string::npos);
  // Brackets inside strings, escaped quotes included, do not count.
  CHECK(CheckJsonBounds("[\"" + std::string(1000, '[') + "\\\"\"]").ok());
  CHECK(!CheckJsonBounds("{\"a\":\"\\\"\"," + nested(100, "") + "}").ok());
  CHECK(!CheckJsonBounds(std::string(101, ' '), 100).ok());
  CHECK(CheckJsonBounds(std::string(100, ' '), 100).ok());

  // The reported crash: deep nesting followed by another key (a recursive copy overflowed the
  // stack). Now an error naming the nesting.
  const std::string record = "{\"deck\":" + nested(150000, "") + ",\"actions\":[]}";
  const absl::StatusOr<GameRecord> parsed = ParseRecord(record);
  REQUIRE(!parsed.ok());
  CHECK(std::string(parsed.status().message()).find("nested deeper") != std::string::npos);
}

}  // namespace
}  // namespace lcfr::io
