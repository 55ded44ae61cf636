#include "training/shipped_models.h"

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/files.h"
#include "base/strings.h"
#include "training/config.h"
#include "training/model_files.h"

namespace lcfr::training {
namespace {

// Every shipped player's file, the classic rules' first. A model's card (NAME.yaml) says which
// rules it plays; the file names only keep them apart.
constexpr std::array<const char*, 2> kShippedFiles = {"lost-cities.pt", "lost-cities-6.pt"};

}  // namespace

std::string ShippedModelDir() {
  const char* dir = std::getenv("LCFR_MODEL_DIR");
  return dir != nullptr && *dir != '\0' ? dir : LCFR_MODEL_DIR;
}
std::string DefaultModelPath() { return ShippedModelDir() + "/lost-cities.pt"; }
std::string DefaultStudentPath() { return ShippedModelDir() + "/lost-cities-student.pt"; }

absl::StatusOr<std::vector<ShippedModel>> ShippedModels(const std::string& dir) {
  std::vector<ShippedModel> models;
  for (const char* file : kShippedFiles) {
    const std::string path = StrCat(dir, "/", file);
    if (!PathExists(path)) continue;
    const absl::StatusOr<ModelFiles> files = ModelFilesOf(path, "a shipped model");
    if (!files.ok()) return files.status();
    const absl::StatusOr<TrainConfig> config = LoadConfigFile(files->config);
    if (!config.ok()) {
      return absl::Status(config.status().code(),
                          StrCat(path, ": its card: ", config.status().message()));
    }
    models.push_back({path, config->rules});
  }
  return models;
}

absl::StatusOr<std::string> ShippedModelFor(const engine::Rules& rules, const std::string& dir) {
  const absl::StatusOr<std::vector<ShippedModel>> models = ShippedModels(dir);
  if (!models.ok()) return models.status();
  std::string held;
  for (const ShippedModel& model : *models) {
    if (model.rules == rules) return model.path;
    held += StrCat(held.empty() ? "" : ", ", model.path.substr(model.path.find_last_of('/') + 1),
                   " (", engine::ToString(model.rules), ")");
  }
  return absl::NotFoundError(StrCat("no shipped model plays the rules (", engine::ToString(rules),
                                    "): ", dir, " holds ", held.empty() ? "none" : held));
}

}  // namespace lcfr::training
