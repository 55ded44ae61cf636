#include "training/model_files.h"

#include <map>
#include <utility>
#include <vector>

#include "base/atomic_file.h"
#include "base/stream_cat.h"
#include "training/checksums.h"

namespace lcfr::training {
namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

absl::StatusOr<ModelFiles> ModelFilesOf(const std::string& networks_path, const std::string& flag) {
  if (networks_path.size() <= 3 || networks_path.compare(networks_path.size() - 3, 3, ".pt") != 0 ||
      networks_path.back() == '/' || BaseName(networks_path) == ".pt") {
    return absl::InvalidArgumentError(
        StreamCat(flag,
                  " must name a networks file ending in .pt (its configuration goes beside "
                  "it, .yaml, and both into checksums.json), not '",
                  networks_path, "'"));
  }
  ModelFiles files;
  const size_t slash = networks_path.find_last_of('/');
  files.directory = slash == std::string::npos ? std::string(".")
                    : slash == 0               ? std::string(1, '/')
                                               : networks_path.substr(0, slash);
  files.networks = networks_path;
  files.config =
      StreamCat(std::string_view(networks_path).substr(0, networks_path.size() - 3), ".yaml");
  files.checksums = StreamCat(files.directory, "/", kChecksumsFile);
  return files;
}

absl::Status WriteModelFiles(const ModelFiles& files, std::string_view networks,
                             std::string_view config) {
  const absl::StatusOr<Checksums> existing = Checksums::Load(files.directory);
  if (!existing.ok()) {
    return absl::FailedPreconditionError(StreamCat(
        existing.status().message(), " (the model's checksums go there: fix or remove it)"));
  }
  std::map<std::string, FileChecksum> listed = existing->files();
  listed[BaseName(files.networks)] = ChecksumBytes(networks);
  listed[BaseName(files.config)] = ChecksumBytes(config);
  const std::string checksums = ChecksumsText(listed);
  // The checksums last: a kill between the renames leaves them disagreeing with what changed.
  const std::vector<std::pair<std::string, std::string_view>> together = {
      {files.networks, networks}, {files.config, config}, {files.checksums, checksums}};
  return WriteFilesTogether(together);
}

}  // namespace lcfr::training
