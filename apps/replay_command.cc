// lcfr replay [FILE]: replays a game record and prints one JSON line per decision.
#include <fstream>
#include <iostream>
#include <sstream>

#include "apps/commands.h"
#include "engine/record.h"
#include "engine/strings.h"

namespace lcfr::apps {
namespace {

struct ReplayOptions {
  std::string file = "-";
};

int RunReplay(const ReplayOptions& opts) {
  std::stringstream text;
  const std::string where = opts.file == "-" ? "<stdin>" : opts.file;
  if (opts.file == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in(opts.file);
    if (!in) {
      PrintError("replay", StrCat(where, ": cannot open"));
      return kExitBadInput;
    }
    text << in.rdbuf();
  }
  const absl::StatusOr<engine::GameRecord> record = engine::ParseRecord(text.str());
  if (!record.ok()) {
    PrintError("replay", StrCat(where, ": ", record.status().message()));
    return kExitBadInput;
  }
  const absl::StatusOr<std::string> log = engine::ReplayLog(*record);
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
