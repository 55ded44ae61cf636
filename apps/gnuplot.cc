#include "apps/gnuplot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/status/statusor.h"
#include "base/atomic_file.h"
#include "base/files.h"
#include "base/strings.h"

extern char** environ;

namespace lcfr::apps {
namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The first line of gnuplot's output that says something, trimmed.
std::string FirstMessage(const std::string& log) {
  size_t begin = 0;
  while (begin < log.size()) {
    size_t end = log.find('\n', begin);
    if (end == std::string::npos) end = log.size();
    std::string line = log.substr(begin, end - begin);
    const size_t first = line.find_first_not_of(" \t^");
    if (first != std::string::npos) {
      line = line.substr(first);
      if (line.size() > 200) line = line.substr(0, 200) + "...";
      return line;
    }
    begin = end + 1;
  }
  return "no output";
}

// Runs `gnuplot chart.gp` in `dir`, its output in dir/gnuplot.log; returns its exit status.
absl::StatusOr<int> Spawn(const std::string& dir) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "gnuplot.log",
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  char arg0[] = "gnuplot";
  char arg1[] = "chart.gp";
  char* argv[] = {arg0, arg1, nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return absl::UnavailableError(StrCat("cannot start gnuplot: ", std::strerror(rc)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return absl::InternalError(StrCat("waitpid: ", std::strerror(errno)));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

bool GnuplotAvailable() {
  const char* path = std::getenv("PATH");
  const std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  size_t begin = 0;
  while (begin <= dirs.size()) {
    size_t end = dirs.find(':', begin);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > begin ? dirs.substr(begin, end - begin) : ".";
    const std::string candidate = dir + "/gnuplot";
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return true;
    }
    begin = end + 1;
  }
  return false;
}

std::string GnuplotLabel(std::string_view text) {
  static constexpr std::string_view kAllowed = " .,:;_-+/()%=<>";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out += alnum || kAllowed.find(c) != std::string_view::npos ? c : '_';
  }
  return out;
}

absl::Status RenderPng(const GnuplotChart& chart, const std::string& png) {
  // A private directory beside the PNG, so that the final rename stays on one file system.
  std::string pattern = DirectoryOf(png) + "/.lcfr_plot_XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::UnavailableError(
        StrCat("cannot create a directory beside ", png, ": ", std::strerror(errno)));
  }
  const std::string dir = pattern;
  auto finish = [&](absl::Status status) {
    (void)RemoveTree(dir);
    return status;
  };
  for (const auto& [name, contents] : chart.data) {
    if (name.empty() || name.find('/') != std::string::npos || name == "chart.gp") {
      return finish(absl::InvalidArgumentError(StrCat("gnuplot data file name '", name, "'")));
    }
    if (absl::Status s = WriteFileAtomically(dir + "/" + name, contents); !s.ok()) {
      return finish(s);
    }
  }
  const std::string script = StrCat("set terminal pngcairo size ", chart.width, ",", chart.height,
                                    " noenhanced\nset output 'chart.png'\n", chart.script, "\n");
  if (absl::Status s = WriteFileAtomically(dir + "/chart.gp", script); !s.ok()) return finish(s);
  const absl::StatusOr<int> rc = Spawn(dir);
  if (!rc.ok()) return finish(rc.status());
  const absl::StatusOr<std::string> log = ReadFileToString(dir + "/gnuplot.log");
  const std::string output = log.ok() ? *log : std::string();
  struct stat st {};
  const bool written = stat((dir + "/chart.png").c_str(), &st) == 0 && st.st_size > 0;
  if (*rc != 0 || !written) {
    return finish(absl::InternalError(
        StrCat("gnuplot could not write ", png, " (exit ", *rc, "): ", FirstMessage(output))));
  }
  if (std::rename((dir + "/chart.png").c_str(), png.c_str()) != 0) {
    return finish(absl::UnavailableError(StrCat("cannot write ", png, ": ", std::strerror(errno))));
  }
  return finish(absl::OkStatus());
}

}  // namespace lcfr::apps
