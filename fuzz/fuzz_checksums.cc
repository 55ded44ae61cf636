// A checkpoint's checksums.json: loaded from a file (the parser reads a directory), then each
// listed file verified (none exists: each must be an error, never a pass or a crash).
#include <unistd.h>

#include <cstdio>
#include <string>

#include "base/atomic_file.h"
#include "fuzz/fuzz_util.h"
#include "training/checksums.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = [] {
    char name[] = "/tmp/lcfr_fuzz_checksums_XXXXXX";
    return std::string(::mkdtemp(name));
  }();
  if (!lcfr::WriteFileAtomically(dir + "/checksums.json", lcfr::fuzz::Text(data, size)).ok()) {
    return 0;
  }
  const auto sums = lcfr::training::Checksums::Load(dir);
  if (!sums.ok()) return 0;
  for (const auto& [name, sum] : sums->files()) {
    if (name == "checksums.json") continue;
    lcfr::fuzz::Require(!sums->Verify(name).ok(), "a listed file that does not exist fails");
  }
  return 0;
}
