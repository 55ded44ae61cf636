// A game record (lcfr replay): parse, then replay whatever parsed.
#include "engine/record.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto record = lcfr::engine::ParseRecord(lcfr::fuzz::Text(data, size));
  if (!record.ok()) return 0;
  const auto log = lcfr::engine::ReplayLog(*record);
  // A record that parses writes back to one that parses to the same record.
  const auto again = lcfr::engine::ParseRecord(lcfr::engine::RecordToJson(*record));
  lcfr::fuzz::Require(
      again.ok() && again->deck == record->deck && again->actions == record->actions,
      "RecordToJson(ParseRecord(x)) parses to the same record");
  (void)log;
  return 0;
}
