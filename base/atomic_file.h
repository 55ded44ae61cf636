// Writing a file so that readers never see it half-written: the bytes go to a temporary file
// beside it, PATH.tmp.<pid>.<n> (unique to the writer: created exclusively, so two processes
// writing the same PATH never share one), which is then renamed over PATH (atomic on POSIX file
// systems). Only a regular file or a new path is replaced this way: a symbolic link to a regular
// file has its target replaced (the link stays), and what is not a regular file (a device such
// as /dev/null, a FIFO, a link to one) is written through, in place; a directory is an error.
// Errors say why (strerror: "No space left on device"), and a failed write leaves no temporary
// behind; so does SIGINT or SIGTERM once InstallTemporaryFileCleanup ran. Plain POSIX, no fmt
// and no std::filesystem, so that translation units that include libtorch can use it too
// (inference/README.md).
#ifndef LCFR_BASE_ATOMIC_FILE_H_
#define LCFR_BASE_ATOMIC_FILE_H_

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"

namespace lcfr {

absl::Status WriteFileAtomically(const std::string& path, std::string_view text);

// Writes every (path, bytes) of `files` atomically, and replaces them together: all of them are
// written to their temporaries before the first is renamed, and when a rename fails the files
// already replaced are put back (from hard links made beforehand) and new ones removed. A kill
// between two renames can still leave some replaced: a set whose checksums say so
// (training/model_files.h) is then refused by its reader, never read mixed.
absl::Status WriteFilesTogether(std::span<const std::pair<std::string, std::string_view>> files);

// The same for a file written piece by piece (buffered). After the first failure Write does
// nothing and Commit returns that failure; the destructor removes the temporary unless
// committed.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void Write(const void* data, size_t size);
  // Flushes and closes, then renames the temporary over the path (written through: nothing to
  // rename).
  absl::Status Commit();
  const std::string& path() const { return path_; }
  // What Commit replaces: the path, or the regular file a symbolic link at the path names.
  const std::string& target() const { return target_; }
  // OK until the first failure (e.g. the temporary could not be created, the path is a
  // directory): a caller that opens the writer before long work can refuse bad paths before
  // spending it.
  const absl::Status& status() const { return status_; }
  // Whether the bytes go straight to the path (not a regular file: a device, a FIFO).
  bool writes_through() const { return temporary_.empty(); }

 private:
  void Fail(const char* what);  // records "cannot write PATH: <what>: <strerror(errno)>"
  void Flush();
  void WriteThrough(const char* data, size_t size);

  std::string path_;       // as given
  std::string target_;     // what is replaced: path_, or the regular file a link names
  std::string temporary_;  // "" when written through
  int slot_ = -1;          // its entry in the signal cleanup's registry, or -1
  int fd_ = -1;
  std::string buffer_;
  absl::Status status_;
  bool committed_ = false;
};

// Whether `name` (a file name, no directory) is a temporary of an atomic write of `base`.
bool IsTemporaryOf(std::string_view name, std::string_view base);

// Installs SIGINT and SIGTERM handlers that remove every temporary file an AtomicFileWriter holds
// open, then end the process by the same signal (its exit status is unchanged). A signal the
// process ignores stays ignored. Call once, early in main, before threads start.
void InstallTemporaryFileCleanup();

}  // namespace lcfr

#endif  // LCFR_BASE_ATOMIC_FILE_H_
