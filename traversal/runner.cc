#include "traversal/runner.h"

#include "base/strings.h"

namespace lcfr::traversal {
namespace {

constexpr Field<SchedulerConfig> kSchedulerFields[] = {
    Number("workers", &SchedulerConfig::workers, 1, 1024,
           "traversal threads, each with its own evaluator and fibers"),
    Number("worker_chunk_size", &SchedulerConfig::worker_chunk_size, 1, 65536,
           "traversals in flight per worker (fibers); the realized batch size (lcfr sweep)"),
    Number("flush_size", &SchedulerConfig::flush_size, 0, 1 << 20,
           "flush at this many waiting requests (0: worker_chunk_size)"),
};

}  // namespace

std::span<const Field<SchedulerConfig>> SchedulerConfigFields() { return kSchedulerFields; }

absl::Status SchedulerConfig::Validate() const {
  return CheckRanges<SchedulerConfig>(*this, kSchedulerFields, "");
}

absl::Status RunnerConfig::Validate() const {
  if (absl::Status s = SchedulerConfig::Validate(); !s.ok()) return s;
  if (fixed_opponent) {
    if (cfr.scheme == Scheme::kEscher) {
      return absl::InvalidArgumentError(
          "traversal.scheme: a fixed opponent plays against the external, outcome, hybrid or "
          "value scheme, not escher (its value traversals play both seats on policy)");
    }
    for (int n : fixed_opponent->network) {
      if (n < 0 || n >= kMaxNetworks) {
        return absl::InvalidArgumentError(
            lcfr::StrCat("a fixed opponent's network id ", n, " is out of range"));
      }
    }
  }
  return cfr.Validate();
}

}  // namespace lcfr::traversal
