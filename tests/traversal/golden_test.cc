// Golden sample digests: fixed traversal batches (tests/traversal/golden_batches.h) must produce
// exactly the samples they produced when tests/golden/sample_digests.txt was written. Any change
// to the game, its encoding, the traversals, the RNG streams or the sample layout shows up here
// as a diff. After an intended change, refresh the file with LCFR_UPDATE_GOLDEN=1
// build/tests/traversal/traversal_tests "[golden]" and say in the commit why the samples changed.
#include <catch2/catch.hpp>
#include <string>

#include "tests/golden_file.h"
#include "tests/traversal/golden_batches.h"

namespace lcfr::traversal {
namespace {

std::string AllDigests() {
  std::string out;
  testing::ForEachGoldenBatch(
      [&out](const std::string& name, const auto&, const CollectingSink& sink) {
        for (SampleKind kind : kSampleKinds) out += testing::DigestLine(name, kind, sink[kind]);
      });
  return out;
}

TEST_CASE("golden: fixed traversal batches give the checked-in sample digests", "[golden]") {
  lcfr::testing::CheckGoldenFile(testing::kGoldenDigestFile, AllDigests());
}

}  // namespace
}  // namespace lcfr::traversal
