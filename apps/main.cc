// lcfr: the command-line front end of the Lost Cities Deep CFR engine.
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <map>
#include <new>
#include <string>
#include <utility>

#include "CLI/CLI.hpp"
#include "apps/commands.h"
#include "engine/atomic_file.h"
#include "engine/error_text.h"
#include "engine/strings.h"
#include "fmt/core.h"
#include "play/play_policy.h"

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

void AddPolicyOptions(CLI::App* command, PolicyOptions* options) {
  command
      ->add_option("--policy", options->policy,
                   "the network policy: average (the strategy network's average strategy) or "
                   "current (the advantage network's regret matching, the last iterate)")
      ->check(CLI::IsMember({"average", "current"}))
      ->capture_default_str();
  command->add_flag("--greedy", options->greedy,
                    "play the most probable legal action (ties broken by the seeded RNG) "
                    "instead of sampling");
}

absl::StatusOr<NetworkSource> LoadNetworkSource(const std::string& checkpoint,
                                                const std::string& model,
                                                const PolicyOptions& policy) {
  const absl::StatusOr<play::PlayPolicy> play = play::PlayPolicy::Parse(policy.Name());
  if (!play.ok()) return play.status();
  absl::StatusOr<training::CheckpointPolicy> loaded =
      checkpoint.empty() ? training::LoadModelPolicy(model)
                         : training::LoadCheckpointPolicy(checkpoint);
  if (!loaded.ok()) return loaded.status();
  if (loaded->config.run.game != training::GameId::kLostCities) {
    return absl::InvalidArgumentError(fmt::format("{}: a {} checkpoint, not a Lost Cities one",
                                                  loaded->directory,
                                                  training::GameName(loaded->config.run.game)));
  }
  return NetworkSource{*std::move(loaded), *play};
}

absl::StatusOr<std::unique_ptr<training::CheckpointBot>> LoadNetworkPlayer(
    const std::string& checkpoint, const std::string& model, const PolicyOptions& policy) {
  absl::StatusOr<NetworkSource> source = LoadNetworkSource(checkpoint, model, policy);
  if (!source.ok()) return source.status();
  return training::CheckpointBot::FromPolicy(std::move(source->policy), source->play);
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
  add(&AddDiagnoseCommand);
  add(&AddDistillCommand);
  add(&AddCompareCommand);
  add(&AddExportCommand);
  RefuseEmptyValues(app);
  std::set_terminate(&OnTerminate);
  // A killed command leaves no temporary of an atomic write behind (engine/atomic_file.h).
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
