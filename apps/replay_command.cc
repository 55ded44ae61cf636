// lcfr replay [FILE]: replays a game record and prints one JSON line per decision.
#include <sys/stat.h>

#include <fstream>
#include <iostream>

#include "apps/commands.h"
#include "base/files.h"
#include "base/json_bounds.h"
#include "base/strings.h"
#include "io/record.h"

namespace lcfr::apps {
namespace {

struct ReplayOptions {
  std::string file = "-";
};

// The whole stream, or an error once it passes `max_bytes` (a record is a few kilobytes).
absl::StatusOr<std::string> ReadAtMost(std::istream& in, size_t max_bytes) {
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes) {
      return absl::InvalidArgumentError(
          StrCat("longer than ", max_bytes, " bytes: not a game record"));
    }
  }
  if (in.bad()) return absl::InvalidArgumentError("cannot read");
  return text;
}

int RunReplay(const ReplayOptions& opts) {
  const std::string where = opts.file == "-" ? "<stdin>" : opts.file;
  absl::StatusOr<std::string> text;
  if (opts.file == "-") {
    text = ReadAtMost(std::cin, kMaxJsonBytes);
  } else {
    if (absl::Status readable = CheckReadableFile(opts.file); !readable.ok()) {
      PrintError("replay", StrCat(readable.message(),
                                  absl::IsNotFound(readable) ? "" : ", not a game record"));
      return kExitBadInput;
    }
    std::ifstream in(opts.file, std::ios::binary);
    if (!in) {
      PrintError("replay", StrCat(where, ": cannot open"));
      return kExitBadInput;
    }
    text = ReadAtMost(in, kMaxJsonBytes);
  }
  if (!text.ok()) {
    PrintError("replay", StrCat(where, ": ", text.status().message()));
    return kExitBadInput;
  }
  const absl::StatusOr<io::GameRecord> record = io::ParseRecord(*text);
  if (!record.ok()) {
    PrintError("replay", StrCat(where, ": ", record.status().message()));
    return kExitBadInput;
  }
  const absl::StatusOr<std::string> log = io::ReplayLog(*record);
  if (!log.ok()) {
    PrintError("replay", StrCat(where, ": ", log.status().message()));
    return kExitBadInput;
  }
  std::cout << *log << std::flush;
  return kExitOk;
}

}  // namespace

CommandFn AddReplayCommand(CLI::App& app) {
  auto opts = std::make_shared<ReplayOptions>();
  CLI::App* cmd = app.add_subcommand(
      "replay",
      "Replay a game record ({\"rules\":{...},\"deck\":[...],\"actions\":[...]}) and print one "
      "JSON line per decision (player, decision, hand, legal, action, move, scores) and a "
      "final line (scores, winner, end, decisions, capped). An illegal action is an error "
      "naming its step (exit 2), and then nothing is printed on stdout.");
  cmd->add_option("file", opts->file, "record file, or - for stdin")->capture_default_str();
  return [opts] { return RunReplay(*opts); };
}

}  // namespace lcfr::apps
