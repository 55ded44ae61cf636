// Golden encodings: the infoset encodings of fixed-seed random playouts of Lost Cities (classic
// and a 6-colour variant), Kuhn and Leduc must equal tests/golden/encodings.txt entry for entry.
// A change of the layout, the normalisers or the order of features shows here as a diff; a
// network trained on the old layout would read the new one wrongly, so an intended change also
// bumps the game's kEncodingVersion. Refresh after such a change with
// LCFR_UPDATE_GOLDEN=1 build/tests/engine/engine_tests "[golden]".
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/rng.h"
#include "engine/kuhn.h"
#include "engine/leduc.h"
#include "engine/lost_cities.h"
#include "tests/golden_file.h"

namespace lcfr::engine {
namespace {

const std::string kGoldenFile = std::string(LCFR_SOURCE_DIR) + "/tests/golden/encodings.txt";

// One line per recorded state: "name game step: index=value ..." over the non-zero entries
// (%.9g: every float bit pattern round-trips).
template <typename G>
std::string PlayoutEncodings(const std::string& name, const G& game, uint64_t seed, int every) {
  Rng rng(seed);
  typename G::State s = game.Deal(rng);
  std::vector<float> features(game.EncodingSize());
  std::string out;
  for (int step = 0; !game.IsTerminal(s); ++step) {
    if (step % every == 0) {
      game.Encode(s, features);
      out += name + " step " + std::to_string(step) + ":";
      for (size_t i = 0; i < features.size(); ++i) {
        if (features[i] == 0.0f) continue;
        char entry[48];
        std::snprintf(entry, sizeof(entry), " %zu=%.9g", i, static_cast<double>(features[i]));
        out += entry;
      }
      out += "\n";
    }
    const uint32_t legal = game.LegalMask(s);
    uint32_t m = legal;
    for (uint32_t k = rng.Uniform(static_cast<uint32_t>(__builtin_popcount(legal))); k > 0; --k) {
      m &= m - 1;
    }
    game.ApplyUnchecked(s, __builtin_ctz(m));
  }
  return out;
}

std::string AllEncodings() {
  // The versions these encodings are: a refresh of this file after a layout change shows the
  // version line unchanged in the diff unless the version was bumped too.
  std::string out = "encoding versions: lost-cities " +
                    std::to_string(LostCities::kEncodingVersion) + ", kuhn " +
                    std::to_string(KuhnPoker::kEncodingVersion) + ", leduc " +
                    std::to_string(LeducPoker::kEncodingVersion) + "\n";
  out += PlayoutEncodings("lost-cities", LostCities(), 7, 9);
  Rules six;
  six.colors = 6;
  six.hand_size = 9;
  out += PlayoutEncodings("lost-cities-6x9", LostCities(six), 8, 13);
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    out += PlayoutEncodings("kuhn", KuhnPoker(), seed, 1);
    out += PlayoutEncodings("leduc", LeducPoker(), seed, 1);
  }
  return out;
}

TEST_CASE("golden: fixed playouts encode to the checked-in features", "[golden]") {
  testing::CheckGoldenFile(kGoldenFile, AllEncodings());
}

}  // namespace
}  // namespace lcfr::engine
