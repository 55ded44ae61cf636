// The golden-file check shared by the golden tests (Catch2, unprefixed macros): `fresh` must
// equal the checked-in file line by line, so that a failure names the line that changed. With
// LCFR_UPDATE_GOLDEN set, the file is rewritten first (then review the diff and say why).
#ifndef LCFR_TESTS_GOLDEN_FILE_H_
#define LCFR_TESTS_GOLDEN_FILE_H_

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace lcfr::testing {

inline void CheckGoldenFile(const std::string& path, const std::string& fresh) {
  if (std::getenv("LCFR_UPDATE_GOLDEN") != nullptr) std::ofstream(path) << fresh;
  std::ifstream in(path);
  std::stringstream golden;
  golden << in.rdbuf();
  INFO(path);
  REQUIRE(!golden.str().empty());
  std::istringstream want(golden.str()), got(fresh);
  std::string want_line, got_line;
  while (std::getline(want, want_line)) {
    REQUIRE(std::getline(got, got_line));
    CHECK(got_line == want_line);
  }
  CHECK(!std::getline(got, got_line));
}

}  // namespace lcfr::testing

#endif  // LCFR_TESTS_GOLDEN_FILE_H_
