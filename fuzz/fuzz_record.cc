// A game record (lcfr replay): parse, then replay whatever parsed.
#include "fuzz/fuzz_util.h"
#include "io/record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto record = lcfr::io::ParseRecord(lcfr::fuzz::Text(data, size));
  if (!record.ok()) return 0;
  const auto log = lcfr::io::ReplayLog(*record);
  // A record that parses writes back to one that parses to the same record.
  const auto again = lcfr::io::ParseRecord(lcfr::io::RecordToJson(*record));
  lcfr::fuzz::Require(
      again.ok() && again->deck == record->deck && again->actions == record->actions,
      "RecordToJson(ParseRecord(x)) parses to the same record");
  (void)log;
  return 0;
}
