// lcfr: the command-line front end of the Lost Cities Deep CFR engine.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <new>
#include <string>
#include <utility>

#include "CLI/CLI.hpp"
#include "apps/commands.h"
#include "base/atomic_file.h"
#include "base/error_text.h"
#include "base/strings.h"
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

CLI::Validator NonNegativeInteger() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const size_t first = text.find_first_not_of(" \t");
        if (first != std::string::npos && text[first] == '-') {
          return "'" + text + "' is negative: expected an integer >= 0";
        }
        return "";
      },
      "UINT");
}

void PrintError(const std::string& command, const std::string& message) {
  fmt::print(stderr, "lcfr {}: {}\n", command, message);
}

namespace {

// The message for an exception that reached the top of `lcfr` (or of one of its threads).
std::string Describe(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::bad_alloc&) {
    return "cannot allocate memory (std::bad_alloc); try smaller sizes or fewer workers";
  } catch (const std::exception& e) {
    return lcfr::ErrorText(e);
  } catch (...) {
    return "an unknown exception";
  }
}

// The last boundary: an exception that escapes a thread's own handler ends the process with
// one line and exit 1 instead of an abort and a core dump.
[[noreturn]] void OnTerminate() {
  std::exception_ptr error = std::current_exception();
  const std::string message =
      error ? "lcfr: fatal: " + Describe(error) + "\n" : "lcfr: fatal: std::terminate\n";
  (void)!::write(STDERR_FILENO, message.data(), message.size());
  ::_exit(kExitFailure);
}

// Every option of `app` and its subcommands that takes a value refuses an empty one: CLI11 reads
// '' as 0 for a number and as nothing for a string, where a user who typed `--seed ''` (or a
// script whose variable was empty) meant something else. The error names the option.
void RefuseEmptyValues(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_size_max() == 0) continue;  // a flag
    option->check(CLI::Validator(
        [](std::string& value) -> std::string {
          return value.empty() ? "an empty value (give one, or leave the option out)" : "";
        },
        "", "NonEmpty"));
  }
  for (CLI::App* sub : app.get_subcommands({})) RefuseEmptyValues(*sub);
}

}  // namespace

// Parses the command line and runs the chosen command; returns the exit code.
int Run(int argc, char** argv) {
  CLI::App app{
      "lcfr: Deep CFR for Lost Cities.\n"
      "Exit codes: 0 success, 2 bad input (the message names what is wrong), 1 failure."};
  app.require_subcommand(1);
  app.formatter(HelpFormatter());  // the subcommands take it as they are added
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
  add(&AddExploitCommand);
  add(&AddLadderCommand);
  add(&AddEvalCommand);
  add(&AddPlotCommand);
  add(&AddPlayCommand);
  add(&AddDiagnoseCommand);
  add(&AddDistillCommand);
  add(&AddCompareCommand);
  add(&AddExportCommand);
  RefuseEmptyValues(app);
  std::set_terminate(&OnTerminate);
  // A killed command leaves no temporary of an atomic write behind (base/atomic_file.h).
  lcfr::InstallTemporaryFileCleanup();
  // CLI11 says only "A subcommand is required" for an unknown first word.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands({})) {
      known |= sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      fmt::print(stderr, "lcfr: unknown command '{}' (commands: {}; see lcfr --help)\n", argv[1],
                 names);
      return kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  for (auto& [sub, fn] : commands) {
    if (!sub->parsed()) continue;
    try {
      return fn();
    } catch (...) {
      PrintError(sub->get_name(), Describe(std::current_exception()));
      return kExitFailure;
    }
  }
  return kExitBadInput;
}

}  // namespace lcfr::apps

// Every command has released what it holds (files closed, threads joined, temporaries
// committed) when Run returns, so the process ends without running static destructors:
// libtorch's take about 0.15 s of every command's run (unregistering its operators), which a
// script that calls `lcfr` many times (the CLI tests among them) pays on each call.
int main(int argc, char** argv) {
  const int code = lcfr::apps::Run(argc, argv);
  std::fflush(nullptr);
  std::_Exit(code);
}
