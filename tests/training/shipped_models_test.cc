// training/shipped_models.h: which shipped model plays which rules, read from the models' cards.
#include "training/shipped_models.h"

#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "base/atomic_file.h"

namespace lcfr::training {
namespace {

std::string TempDir() {
  char name[] = "/tmp/lcfr_shipped_models_test_XXXXXX";
  return ::mkdtemp(name);
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A models folder holding the classic model's card and, with `six`, a card of six colours; the
// networks files only need to be there.
std::string ModelsDir(bool six) {
  const std::string dir = TempDir();
  const std::string card = Read(std::string(LCFR_SOURCE_DIR) + "/models/lost-cities.yaml");
  REQUIRE(card.find("  colors: 5") != std::string::npos);
  REQUIRE(WriteFileAtomically(dir + "/lost-cities.pt", "n").ok());
  REQUIRE(WriteFileAtomically(dir + "/lost-cities.yaml", card).ok());
  if (six) {
    std::string six_card = card;
    six_card.replace(six_card.find("  colors: 5"), 11, "  colors: 6");
    REQUIRE(WriteFileAtomically(dir + "/lost-cities-6.pt", "n").ok());
    REQUIRE(WriteFileAtomically(dir + "/lost-cities-6.yaml", six_card).ok());
  }
  return dir;
}

TEST_CASE("shipped models: each rule set gets the model whose card plays it", "[shipped]") {
  const std::string dir = ModelsDir(/*six=*/true);
  engine::Rules six;
  six.colors = 6;
  CHECK(ShippedModelFor(engine::Rules{}, dir).value() == dir + "/lost-cities.pt");
  CHECK(ShippedModelFor(six, dir).value() == dir + "/lost-cities-6.pt");
  const absl::StatusOr<std::vector<ShippedModel>> models = ShippedModels(dir);
  REQUIRE(models.ok());
  REQUIRE(models->size() == 2);
  CHECK((*models)[1].rules == six);
  // Rules no card plays: refused, naming them and what the folder holds.
  engine::Rules four;
  four.colors = 4;
  const absl::StatusOr<std::string> none = ShippedModelFor(four, dir);
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().code() == absl::StatusCode::kNotFound);
  const std::string message(none.status().message());
  CHECK(message.find("no shipped model plays the rules (colors=4 ranks=9") != std::string::npos);
  CHECK(message.find("lost-cities.pt (colors=5") != std::string::npos);
  CHECK(message.find("lost-cities-6.pt (colors=6") != std::string::npos);
  // Six colours but hands of 9: only exact rules match.
  engine::Rules nine = six;
  nine.hand_size = 9;
  CHECK_FALSE(ShippedModelFor(nine, dir).ok());
}

TEST_CASE("shipped models: a folder without the six-colour model says so", "[shipped]") {
  const std::string dir = ModelsDir(/*six=*/false);
  engine::Rules six;
  six.colors = 6;
  const absl::StatusOr<std::string> none = ShippedModelFor(six, dir);
  REQUIRE_FALSE(none.ok());
  CHECK(std::string(none.status().message()).find(dir + " holds lost-cities.pt (colors=5") !=
        std::string::npos);
  CHECK(ShippedModelFor(engine::Rules{}, ModelsDir(false)).ok());
}

TEST_CASE("shipped models: a model without a readable card is an error naming it", "[shipped]") {
  const std::string dir = ModelsDir(/*six=*/true);
  REQUIRE(WriteFileAtomically(dir + "/lost-cities-6.yaml", "rules: [").ok());
  const absl::StatusOr<std::string> found = ShippedModelFor(engine::Rules{}, dir);
  REQUIRE_FALSE(found.ok());
  CHECK(std::string(found.status().message()).find(dir + "/lost-cities-6.pt: its card") !=
        std::string::npos);
}

TEST_CASE("shipped models: the source tree's folder, or LCFR_MODEL_DIR", "[shipped]") {
  CHECK(ShippedModelFor(engine::Rules{}).value() == DefaultModelPath());
  const std::string dir = ModelsDir(/*six=*/true);
  ::setenv("LCFR_MODEL_DIR", dir.c_str(), 1);
  engine::Rules six;
  six.colors = 6;
  const absl::StatusOr<std::string> found = ShippedModelFor(six);
  ::unsetenv("LCFR_MODEL_DIR");
  CHECK(found.value() == dir + "/lost-cities-6.pt");
}

}  // namespace
}  // namespace lcfr::training
