// A checkpoint's state.json (lcfr train --resume).
#include <string>

#include "fuzz/fuzz_util.h"
#include "training/run_directory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(lcfr::fuzz::Text(data, size));
  const auto state = lcfr::training::CheckpointState::Parse("state.json", text, 3);
  if (state.ok()) lcfr::fuzz::Require(state->iteration == 3, "the iteration is the checkpoint's");
  return 0;
}
