#include "traversal/runner.h"

#include "engine/strings.h"

namespace lcfr::traversal {

absl::Status RunnerConfig::Validate() const {
  if (workers < 1 || workers > 1024) {
    return absl::InvalidArgumentError(
        lcfr::StrCat("workers = ", workers, ": must be in [1, 1024]"));
  }
  if (worker_chunk_size < 1 || worker_chunk_size > 65536) {
    return absl::InvalidArgumentError(
        lcfr::StrCat("worker_chunk_size = ", worker_chunk_size, ": must be in [1, 65536]"));
  }
  if (max_batch < 0) {
    return absl::InvalidArgumentError(
        lcfr::StrCat("max_batch = ", max_batch, ": must be >= 0 (0 = worker_chunk_size)"));
  }
  return cfr.Validate();
}

}  // namespace lcfr::traversal
