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
#include "engine/atomic_file.h"
#include "engine/match.h"
#include "engine/rules.h"
#include "inference/network_config.h"
#include "training/checkpoint.h"
#include "training/search.h"

namespace lcfr::apps {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

using CommandFn = std::function<int()>;

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

// --games-out FILE (eval, match): the match's games, one CSV row each (engine/games_file.h), for
// lcfr compare. OpenGamesOut opens FILE's writer (engine/atomic_file.h: a temporary of its own
// beside it, or FILE itself for a device or FIFO) before the match, so that a path that cannot be
// written is refused (exit_code kExitBadInput, the message printed) before any game is played; an
// empty path gives nullptr and kExitOk. WriteGamesOut writes the rows and commits them (nothing
// for nullptr); its exit code, the message printed on failure.
std::unique_ptr<AtomicFileWriter> OpenGamesOut(const std::string& command, const std::string& path,
                                               int& exit_code);
int WriteGamesOut(const std::string& command, std::unique_ptr<AtomicFileWriter> writer,
                  const engine::MatchResult& result, uint64_t seed);

// Parses repeated "--rule key=value" overrides on top of the classic rules and validates them.
absl::StatusOr<engine::Rules> RulesFromOverrides(const std::vector<std::string>& overrides);

// For unsigned options (seeds): CLI11 would read "-1" as 18446744073709551615.
CLI::Validator NonNegativeInteger();

// --policy average|current and --greedy (eval, agent, play): which network policy plays
// (play/play_policy.h). agent and play default to current, sampled: the strongest measured
// (benchmarks/README.md, issue 12); eval to average, as before.
struct PolicyOptions {
  std::string policy = "average";
  bool greedy = false;
  // "average", "average-greedy", "current" or "current-greedy".
  std::string Name() const { return greedy ? policy + "-greedy" : policy; }
};
void AddPolicyOptions(CLI::App* command, PolicyOptions* options);

// The Lost Cities policy of the checkpoint `checkpoint` or, when that is empty, of the networks
// file `model`, and the play policy `policy` names. The error names what is wrong.
struct NetworkSource {
  training::CheckpointPolicy policy;
  play::PlayPolicy play;
};
absl::StatusOr<NetworkSource> LoadNetworkSource(const std::string& checkpoint,
                                                const std::string& model,
                                                const PolicyOptions& policy);

// The network player of agent and play: LoadNetworkSource's policy, one forward per decision.
// The error names what is wrong (the caller exits 2).
absl::StatusOr<std::unique_ptr<training::CheckpointBot>> LoadNetworkPlayer(
    const std::string& checkpoint, const std::string& model, const PolicyOptions& policy);

// --search, --rollouts, --move-time-ms, --worlds, --candidates, --threshold, --rollout-policy,
// --opponent-rollout-policy, --objective, --allocation, --drop-threshold, --rollout-depth,
// --belief, --belief-power, --belief-policy, --search-width and (agent, play: `workers`)
// --workers and --device: search at play time (training/search.h, docs/search.md).
struct SearchOptions {
  bool search = false;
  training::SearchConfig config;
  // agent and play: --device, where the search's networks run (cpu, cuda or auto; eval has its
  // own --device for both its players).
  std::string device = "cpu";
  std::vector<CLI::Option*> needs_search;  // the options that mean nothing without --search
  CLI::Option* rollouts = nullptr;         // --rollouts, to tell its default from a choice
};
void AddSearchOptions(CLI::App* command, SearchOptions* options, bool workers);
// agent and play: with --search over `model` when it is the shipped model's file
// (training::DefaultModelPath, by any path), no --rollout-model, and the model in the rollouts, the
// rollouts ask the shipped student (training::DefaultStudentPath) and, where --rollouts is not
// given, spend kShippedSearchRollouts: the strongest budget measured that decides within 1 s on 2
// cores (docs/search.md). Elsewhere nothing changes.
inline constexpr int kShippedSearchRollouts = 2000;
void ApplyShippedModelSearchDefaults(const std::string& model, SearchOptions& options);
// One line on what a search spends: "4000 rollouts a decision (racing), rollouts by FILE", and
// ", on cuda" where its networks run on the GPU.
std::string SearchSummary(const training::SearchConfig& config,
                          inference::Device device = inference::Device::kCpu);
// OK without --search and no search option given, or with --search and a valid config; the
// error names the flag.
absl::Status CheckSearchOptions(const SearchOptions& options);
// The networks of --rollout-model `file` (config.rollout_model), checked to be a Lost Cities
// model of `rules` (the blueprint's); errors name the flag (`flag`: --opponent-rollout-model for
// config.opponent_rollout_model) and the file.
absl::StatusOr<std::shared_ptr<const inference::ModelStore>> LoadRolloutModel(
    const std::string& file, const engine::Rules& rules,
    const std::string& flag = "--rollout-model");

// The searching player of agent and play: over the policy of `checkpoint` or `model` (one of
// them non-empty, playing as `policy` says) or else over the bot `bot` on `bot_rules`, its
// networks on `search.device` (resolved here: auto is cuda where a GPU is visible). Errors name
// what is wrong (the caller exits 2).
struct LoadedPlayer {
  std::unique_ptr<engine::Bot> bot;
  engine::Rules rules;
  std::string name;
  inference::Device device = inference::Device::kCpu;  // where its networks run (a bot: cpu)
};
absl::StatusOr<LoadedPlayer> LoadSearchingPlayer(const std::string& checkpoint,
                                                 const std::string& model, const std::string& bot,
                                                 const PolicyOptions& policy,
                                                 const SearchOptions& search,
                                                 const engine::Rules& bot_rules);

// "lcfr <command>: <message>" on stderr.
void PrintError(const std::string& command, const std::string& message);

}  // namespace lcfr::apps

#endif  // LCFR_APPS_COMMANDS_H_
