// Writing a file so that readers never see it half-written: the bytes go to PATH.tmp, which is
// then renamed over PATH (atomic on POSIX file systems). Errors say why (strerror: "No space
// left on device"), and a failed write leaves no PATH.tmp behind. Plain POSIX, no fmt and no
// std::filesystem, so that translation units that include libtorch can use it too
// (inference/README.md).
#ifndef LCFR_ENGINE_ATOMIC_FILE_H_
#define LCFR_ENGINE_ATOMIC_FILE_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace lcfr {

absl::Status WriteFileAtomically(const std::string& path, std::string_view text);

// The same for a file written piece by piece (buffered). After the first failure Write does
// nothing and Commit returns that failure; the destructor removes PATH.tmp unless committed.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void Write(const void* data, size_t size);
  // Flushes, closes and renames PATH.tmp over PATH.
  absl::Status Commit();
  const std::string& path() const { return path_; }
  // OK until the first failure (e.g. PATH.tmp could not be created): a caller that opens the
  // writer before long work can refuse bad paths before spending it.
  const absl::Status& status() const { return status_; }

 private:
  void Fail(const char* what);  // records "cannot write PATH: <what>: <strerror(errno)>"
  void Flush();
  void WriteThrough(const char* data, size_t size);

  std::string path_, temporary_;
  int fd_ = -1;
  std::string buffer_;
  absl::Status status_;
  bool committed_ = false;
};

}  // namespace lcfr

#endif  // LCFR_ENGINE_ATOMIC_FILE_H_
