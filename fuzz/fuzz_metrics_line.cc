// A metrics.jsonl line (lcfr plot, a resume's truncation): what parses writes back to a line
// that parses.
#include "fuzz/fuzz_util.h"
#include "training/iteration_metrics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using lcfr::training::IterationMetrics;
  const auto metrics = IterationMetrics::FromJsonLine(lcfr::fuzz::Text(data, size));
  if (!metrics.ok()) return 0;
  const auto again = IterationMetrics::FromJsonLine(metrics->ToJsonLine());
  lcfr::fuzz::Require(again.ok() && again->ToJsonLine() == metrics->ToJsonLine(),
                      "ToJsonLine(FromJsonLine(x)) parses to the same line");
  return 0;
}
