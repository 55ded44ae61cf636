// --search and its options, shared by eval, agent and play, made from the search's field tables
// (search/config.h).
#include <memory>
#include <string>
#include <variant>

#include "apps/commands.h"
#include "base/strings.h"
#include "fmt/core.h"
#include "inference/batched_evaluator.h"
#include "training/checkpoint.h"
#include "training/play_sources.h"

namespace lcfr::apps {
namespace {

using search::SearchConfig;

// Whether `which` shows the row: eval has --workers of its own (games at once); the oracles read
// the true state, which only eval hands the search.
bool Shows(const Field<SearchConfig>& f, SearchCommand which) {
  if (f.key == "workers") return which != SearchCommand::kEval;
  if (f.key == "oracle_hand" || f.key == "oracle_deck") return which == SearchCommand::kEval;
  return true;
}

// One option of the command for the row `f` of `config`, its value written into the struct.
CLI::Option* AddField(CLI::App* command, SearchConfig& config, const Field<SearchConfig>& f) {
  const std::string flag = search::FlagName(f.key);
  const std::string help(f.help);
  struct Visitor {
    CLI::App* command;
    SearchConfig& c;
    const Field<SearchConfig>& f;
    const std::string& flag;
    const std::string& help;
    CLI::Option* operator()(int SearchConfig::*m) const {
      return command->add_option(flag, c.*m, help)->capture_default_str();
    }
    CLI::Option* operator()(int64_t SearchConfig::*m) const {
      return command->add_option(flag, c.*m, help)->capture_default_str();
    }
    CLI::Option* operator()(double SearchConfig::*m) const {
      return command->add_option(flag, c.*m, help)->capture_default_str();
    }
    CLI::Option* operator()(bool SearchConfig::*m) const {
      return command->add_flag(flag, c.*m, help);
    }
    CLI::Option* operator()(std::string SearchConfig::*m) const {
      return command->add_option(flag, c.*m, help);
    }
    CLI::Option* operator()(std::vector<std::string> SearchConfig::*m) const {
      return command->add_option(flag, c.*m, help);
    }
    CLI::Option* operator()(const EnumMember<SearchConfig>& m) const {
      std::vector<std::string> names;
      for (const EnumName& n : f.names) names.emplace_back(n.name);
      SearchConfig* config = &c;
      const EnumMember<SearchConfig> member = m;
      const std::span<const EnumName> table = f.names;
      return command
          ->add_option_function<std::string>(
              flag,
              [config, member, table](const std::string& name) {
                member.set(*config, *ValueOf(table, name));  // checked by IsMember
              },
              help)
          ->check(CLI::IsMember(names))
          ->default_str(std::string(NameOf(f.names, m.get(c))));
    }
  };
  return std::visit(Visitor{command, config, f, flag, help}, f.member);
}

class ExperimentalHidingFormatter : public CLI::Formatter {
 public:
  std::string make_group(std::string group, bool is_positional,
                         std::vector<const CLI::Option*> opts) const override {
    if (group == kExperimentalGroup) return "";
    return CLI::Formatter::make_group(std::move(group), is_positional, std::move(opts));
  }
};

}  // namespace

std::shared_ptr<CLI::Formatter> HelpFormatter() {
  return std::make_shared<ExperimentalHidingFormatter>();
}

void AddSearchOptions(CLI::App* command, SearchOptions* options, SearchCommand which) {
  options->search_flag =
      command->add_flag("--search", options->search,
                        "search every decision: rollouts of the player's policy from worlds "
                        "sampled from what it knows (docs/search.md); default: the model card's");
  options->needs_search.push_back(command->add_flag(
      "--no-search", options->no_search, "do not search, even where the model card does"));
  for (const Field<SearchConfig>& f : search::SearchFields()) {
    if (!Shows(f, which)) continue;
    CLI::Option* option = AddField(command, options->config, f);
    options->needs_search.push_back(option);
    if (f.key == "rollouts") options->rollouts = option;
    if (f.key == "rollout_model") options->rollout_model = option;
  }
  if (which != SearchCommand::kEval) {
    options->needs_search.push_back(
        command
            ->add_option("--device", options->device,
                         "where the search's networks run: cpu, cuda or auto (cuda where a GPU "
                         "is visible)")
            ->capture_default_str());
  }
  // Kept to measure them (docs/experiments.md): left out of --help (HelpFormatter).
  for (const Field<SearchConfig>& f : search::ExperimentalSearchFields()) {
    if (!Shows(f, which)) continue;
    options->needs_search.push_back(
        AddField(command, options->config, f)->group(kExperimentalGroup));
  }
  command->add_flag("--help-experimental", options->help_experimental,
                    "list the search's experimental options (levers kept to measure them)");
  // --no-search says nothing with --search.
  options->search_flag->excludes(options->needs_search.front());
}

void PrintExperimentalSearchHelp(const std::string& command, SearchCommand which) {
  fmt::print(
      "lcfr {} --search: experimental options, kept to measure levers that did not (yet) pay "
      "(docs/experiments.md); off by default:\n",
      command);
  const SearchConfig defaults;
  for (const Field<SearchConfig>& f : search::ExperimentalSearchFields()) {
    if (!Shows(f, which)) continue;
    fmt::print("  {:<18} {} (default {})\n", search::FlagName(f.key), f.help,
               ValueText(defaults, f));
  }
}

void ApplyCard(const play::PlayCard& card, const std::string& card_dir, SearchOptions& options) {
  if (!options.search && card.search && !options.no_search) options.search = true;
  if (!options.search) return;
  search::SearchConfig& c = options.config;
  if (card.rollouts > 0 && (options.rollouts == nullptr || options.rollouts->count() == 0)) {
    c.rollouts = card.rollouts;
  }
  // The card's rollout model plays the rollouts' model sides, where there are some and the
  // command line names no rollout model.
  const bool named = options.rollout_model != nullptr && options.rollout_model->count() > 0;
  if (!card.rollout_model.empty() && !named &&
      (c.rollout_policy.empty() || c.rollouts_name_model())) {
    c.rollout_model = card.rollout_model.front() == '/' ? card.rollout_model
                                                        : card_dir + "/" + card.rollout_model;
  }
}

std::string SearchSummary(const SearchConfig& c, inference::Device device) {
  std::string line = fmt::format("{} rollouts a decision ({}", c.rollouts,
                                 NameOf(search::kAllocationNames, static_cast<int>(c.allocation)));
  if (c.move_time_ms > 0) line += fmt::format(", at most {} ms", c.move_time_ms);
  line += ")";
  if (!c.rollout_model.empty()) line += ", rollouts by " + c.rollout_model;
  if (device == inference::Device::kCuda) line += ", on cuda";
  return line;
}

absl::Status CheckSearchOptions(const SearchOptions& options) {
  if (!options.search) {
    for (const CLI::Option* option : options.needs_search) {
      if (option->count() > 0 && option->get_name() != "--no-search") {
        return absl::InvalidArgumentError(StrCat(option->get_name(), " needs --search"));
      }
    }
    return absl::OkStatus();
  }
  return options.config.Validate();
}

absl::StatusOr<std::shared_ptr<const inference::ModelStore>> LoadRolloutModel(
    const std::string& file, const engine::Rules& rules) {
  absl::StatusOr<std::shared_ptr<const inference::ModelStore>> store =
      training::LoadRolloutModel(file, rules);
  if (!store.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("--rollout-model: {}", std::string(store.status().message())));
  }
  return store;
}

}  // namespace lcfr::apps
