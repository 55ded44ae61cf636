// A model: the networks file NAME.pt, beside it NAME.yaml (the configuration that trained them),
// and their entries in the directory's checksums.json (training/checksums.h). Written together
// (lcfr distill, lcfr export), and checked by every loader (training/checkpoint.h,
// LoadModelPolicy): a flipped byte, a truncated or padded copy or a file of another model is an
// error naming the file, never a player that plays differently. Torch-free.
#ifndef LCFR_TRAINING_MODEL_FILES_H_
#define LCFR_TRAINING_MODEL_FILES_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lcfr::training {

struct ModelFiles {
  std::string directory;  // "." for a bare name
  std::string networks;   // NAME.pt
  std::string config;     // NAME.yaml
  std::string checksums;  // directory/checksums.json
};

// The files of the model whose networks are `networks_path`; an error (naming `flag`, e.g.
// "--out") when it does not end in .pt.
absl::StatusOr<ModelFiles> ModelFilesOf(const std::string& networks_path, const std::string& flag);

// Writes the model's networks (their serialized bytes) and configuration (its YAML text), and
// checksums.json with their entries added to those it lists, together (base/atomic_file.h,
// WriteFilesTogether): an existing model's files are all replaced, or none is. An existing
// checksums.json that cannot be read is an error naming it (nothing is written).
absl::Status WriteModelFiles(const ModelFiles& files, std::string_view networks,
                             std::string_view config);

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_MODEL_FILES_H_
