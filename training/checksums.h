// checksums.json in every checkpoint: the size and CRC-32 (zlib) of each of its files, written
// last before the checkpoint is published, and verified when a file is read back (a resume:
// every file the rank reads; eval, agent and play: networks.pt and config.yaml). A flipped byte,
// a truncated copy or a file from another checkpoint is then an error naming the file, not a
// policy that silently plays differently.
//
// {"format": 1, "files": {"networks.pt": {"bytes": 364853, "crc32": "9a3c01f2"}, ...}}
//
// A checkpoint written before checksums existed has no checksums.json; its files are read
// unverified (Checksums::present() says which).
#ifndef LCFR_TRAINING_CHECKSUMS_H_
#define LCFR_TRAINING_CHECKSUMS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace lcfr::training {

inline constexpr char kChecksumsFile[] = "checksums.json";

struct FileChecksum {
  int64_t bytes = 0;
  uint32_t crc32 = 0;
  bool operator==(const FileChecksum&) const = default;
};

absl::StatusOr<FileChecksum> ChecksumFile(const std::string& path);
FileChecksum ChecksumBytes(std::string_view bytes);
// A checksums.json's text listing `files` (name -> checksum).
std::string ChecksumsText(const std::map<std::string, FileChecksum>& files);

// Writes dir/checksums.json for every regular file in `dir`. A file that is a hard link of one
// listed in `previous_dir`'s checksums (a memory segment carried over, training/memory.h) keeps
// that entry instead of being read again; `previous_dir` may be empty.
absl::Status WriteChecksums(const std::string& dir, const std::string& previous_dir);

class Checksums {
 public:
  // dir/checksums.json; without one, every Verify passes (a checkpoint of an earlier version).
  static absl::StatusOr<Checksums> Load(const std::string& dir);

  bool present() const { return present_; }
  const std::map<std::string, FileChecksum>& files() const { return files_; }
  // Reads dir/name and compares it with its entry; the error names the file and what differs.
  absl::Status Verify(const std::string& name) const;

 private:
  std::string dir_;
  bool present_ = false;
  std::map<std::string, FileChecksum> files_;
};

}  // namespace lcfr::training

#endif  // LCFR_TRAINING_CHECKSUMS_H_
