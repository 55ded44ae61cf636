// The subcommands of `lcfr`. Each Add*Command registers its options on the parent CLI11 app
// and returns the function to run when that subcommand was chosen; the function returns the
// process exit code: 0 success, 2 bad input (a message on stderr names what is wrong), 1 an
// internal failure.
#ifndef LCFR_APPS_COMMANDS_H_
#define LCFR_APPS_COMMANDS_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "base/atomic_file.h"
#include "engine/rules.h"
#include "inference/network_config.h"
#include "play/match.h"
#include "play/play_policy.h"
#include "search/config.h"
#include "training/checkpoint.h"

namespace lcfr::apps {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

using CommandFn = std::function<int()>;

// The exit code of a run that failed with `status` (train, exploit): kExitBadInput for what the
// input caused (an invalid argument, a missing file, a corrupt checkpoint), else kExitFailure.
int ExitCodeFor(const absl::Status& status);

CommandFn AddReplayCommand(CLI::App& app);
CommandFn AddMatchCommand(CLI::App& app);
CommandFn AddAgentCommand(CLI::App& app);
CommandFn AddInfoCommand(CLI::App& app);
CommandFn AddSweepCommand(CLI::App& app);
CommandFn AddTrainCommand(CLI::App& app);
CommandFn AddEvalCommand(CLI::App& app);
CommandFn AddPlotCommand(CLI::App& app);
CommandFn AddPlayCommand(CLI::App& app);
CommandFn AddDiagnoseCommand(CLI::App& app);
CommandFn AddDistillCommand(CLI::App& app);
CommandFn AddCompareCommand(CLI::App& app);
CommandFn AddExportCommand(CLI::App& app);
CommandFn AddExploitCommand(CLI::App& app);
CommandFn AddLadderCommand(CLI::App& app);

// --games-out FILE (eval, match): the match's games, one CSV row each (io/games_file.h), for
// lcfr compare. OpenGamesOut opens FILE's writer (base/atomic_file.h: a temporary of its own
// beside it, or FILE itself for a device or FIFO) before the match, so that a path that cannot be
// written is refused (exit_code kExitBadInput, the message printed) before any game is played; an
// empty path gives nullptr and kExitOk. WriteGamesOut writes the rows and commits them (nothing
// for nullptr); its exit code, the message printed on failure.
std::unique_ptr<AtomicFileWriter> OpenGamesOut(const std::string& command, const std::string& path,
                                               int& exit_code);
int WriteGamesOut(const std::string& command, std::unique_ptr<AtomicFileWriter> writer,
                  const play::MatchResult& result, uint64_t seed);

// Parses repeated "--rule key=value" overrides on top of the classic rules and validates them.
absl::StatusOr<engine::Rules> RulesFromOverrides(const std::vector<std::string>& overrides);

// For unsigned options (seeds): CLI11 would read "-1" as 18446744073709551615.
CLI::Validator NonNegativeInteger();

// --policy average|current and --greedy (eval, agent, play): which network policy plays
// (play/play_policy.h). By default the model card's (play::PlayCard: current, sampled, for the
// models this project trains and ships); the flags override it.
struct PolicyOptions {
  std::string policy;  // "" = the card's
  bool greedy = false;
  CLI::Option* greedy_option = nullptr;
  // The play policy: the card's, with what the flags name over it.
  absl::StatusOr<play::PlayPolicy> Resolve(const play::PlayCard& card) const;
};
void AddPolicyOptions(CLI::App* command, PolicyOptions* options);

// --search and its options: search at play time (search/, docs/search.md). The options come from
// the search's field tables (search/config.h): the product's in --help, the experimental ones
// hidden and listed by --help-experimental.
enum class SearchCommand { kEval, kAgent, kPlay };
struct SearchOptions {
  bool search = false;
  bool no_search = false;  // --no-search: not even where the model card searches
  search::SearchConfig config;
  // agent and play: --device, where the search's networks run (cpu, cuda or auto; eval has its
  // own --device for both its players).
  std::string device = "cpu";
  bool help_experimental = false;
  std::vector<CLI::Option*> needs_search;  // the options that mean nothing without --search
  CLI::Option* search_flag = nullptr;
  CLI::Option* rollouts = nullptr;       // to tell a default from a choice
  CLI::Option* rollout_model = nullptr;  // likewise
};
void AddSearchOptions(CLI::App* command, SearchOptions* options, SearchCommand which);
// --help-experimental: the experimental search options of `command` on stdout.
void PrintExperimentalSearchHelp(const std::string& command, SearchCommand which);
// The option group of the experimental search options: left out of --help by the program's
// formatter (HelpFormatter), listed by --help-experimental. (CLI11 hides an option by giving it
// no group, and then names it nowhere, not even in its own errors.)
inline constexpr char kExperimentalGroup[] = "Experimental";
// --help as CLI11 writes it, less the options of kExperimentalGroup.
std::shared_ptr<CLI::Formatter> HelpFormatter();
// A model card's search (play::PlayCard) where the flags leave it: --search (unless
// --no-search), and with the search the card's rollouts and rollout model (`card_dir`: the
// directory its path is relative to; only when a rollout side plays the model).
void ApplyCard(const play::PlayCard& card, const std::string& card_dir, SearchOptions& options);
// One line on what a search spends: "2000 rollouts a decision (uniform), rollouts by FILE", and
// ", on cuda" where its networks run on the GPU.
std::string SearchSummary(const search::SearchConfig& config,
                          inference::Device device = inference::Device::kCpu);
// OK without --search and no search option given, or with --search and a valid config; the
// error names the flag.
absl::Status CheckSearchOptions(const SearchOptions& options);
// The networks of --rollout-model `file`, checked to be a Lost Cities model of `rules` (the
// blueprint's); errors name the flag and the file.
absl::StatusOr<std::shared_ptr<const inference::ModelStore>> LoadRolloutModel(
    const std::string& file, const engine::Rules& rules);

// The Lost Cities policy of the checkpoint `checkpoint` or, when that is empty, of the networks
// file `model`, the play policy the flags and its card give, and where its card's paths start.
// The error names what is wrong.
struct NetworkSource {
  training::CheckpointPolicy policy;
  play::PlayPolicy play;
  std::string card_dir;
};
absl::StatusOr<NetworkSource> LoadNetworkSource(const std::string& checkpoint,
                                                const std::string& model,
                                                const PolicyOptions& policy);

// The player of agent and play: a checkpoint's or a model's policy (one forward per decision),
// or a bot on `bot_rules`, each searching when --search or the model's card says so (its
// networks on `search.device`, resolved here: auto is cuda where a GPU is visible). Errors name
// what is wrong (the caller exits 2).
struct LoadedPlayer {
  std::unique_ptr<play::Bot> bot;
  engine::Rules rules;
  std::string name;
  bool searching = false;
  std::string summary;                                 // with the search: SearchSummary's line
  inference::Device device = inference::Device::kCpu;  // where its networks run (a bot: cpu)
};
absl::StatusOr<LoadedPlayer> LoadPlayer(const std::string& checkpoint, const std::string& model,
                                        const std::string& bot, const PolicyOptions& policy,
                                        SearchOptions search, const engine::Rules& bot_rules);

// "lcfr <command>: <message>" on stderr.
void PrintError(const std::string& command, const std::string& message);

}  // namespace lcfr::apps

#endif  // LCFR_APPS_COMMANDS_H_
