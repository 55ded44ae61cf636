// A run configuration (lcfr train --config, a checkpoint's config.yaml): parse and validate;
// what parses dumps to YAML that parses to the same dump.
#include <string>

#include "fuzz/fuzz_util.h"
#include "training/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lcfr::training;
  const std::string yaml(lcfr::fuzz::Text(data, size));
  const auto config = ParseConfig(yaml, "fuzz.yaml");
  if (!config.ok()) return 0;
  (void)Validate(*config);
  const std::string dumped = DumpConfig(*config);
  const auto again = ParseConfig(dumped, "dumped.yaml");
  lcfr::fuzz::Require(again.ok() && DumpConfig(*again) == dumped,
                      "DumpConfig(ParseConfig(x)) parses to the same config");
  return 0;
}
