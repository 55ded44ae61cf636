// lcfr: the command-line front end of the Lost Cities Deep CFR engine.
#include <cstdio>
#include <map>
#include <string>

#include "CLI/CLI.hpp"
#include "apps/commands.h"
#include "engine/strings.h"
#include "fmt/core.h"

namespace lcfr::apps {

absl::StatusOr<engine::Rules> RulesFromOverrides(const std::vector<std::string>& overrides) {
  engine::Rules rules;
  for (const std::string& item : overrides) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      return absl::InvalidArgumentError(
          StrCat("--rule '", item, "': expected key=value, e.g. --rule colors=6"));
    }
    const std::string key = item.substr(0, eq);
    const std::string text = item.substr(eq + 1);
    long long value = 0;
    size_t used = 0;
    try {
      value = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size()) {
      return absl::InvalidArgumentError(StrCat("--rule ", key, "='", text, "' is not an integer"));
    }
    if (absl::Status st = engine::SetRulesField(rules, key, value); !st.ok()) return st;
  }
  if (absl::Status st = engine::Validate(rules); !st.ok()) return st;
  return rules;
}

void PrintError(const std::string& command, const std::string& message) {
  fmt::print(stderr, "lcfr {}: {}\n", command, message);
}

}  // namespace lcfr::apps

int main(int argc, char** argv) {
  using namespace lcfr::apps;
  CLI::App app{
      "lcfr: Deep CFR for Lost Cities.\n"
      "Exit codes: 0 success, 2 bad input (the message names what is wrong), 1 failure."};
  app.require_subcommand(1);
  std::map<CLI::App*, CommandFn> commands;
  auto add = [&](CommandFn (*adder)(CLI::App&)) {
    const size_t before = app.get_subcommands({}).size();
    CommandFn fn = adder(app);
    commands[app.get_subcommands({})[before]] = std::move(fn);
  };
  add(&AddReplayCommand);
  add(&AddMatchCommand);
  add(&AddAgentCommand);
  add(&AddInfoCommand);
  add(&AddSweepCommand);
  add(&AddTrainCommand);
  add(&AddEvalCommand);
  add(&AddPlotCommand);
  add(&AddPlayCommand);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  for (auto& [sub, fn] : commands) {
    if (sub->parsed()) return fn();
  }
  return kExitBadInput;
}
