#include "search/config.h"

#include <algorithm>
#include <optional>

#include "base/strings.h"
#include "play/bots.h"

namespace lcfr::search {
namespace {

constexpr Field<SearchConfig> kFields[] = {
    Number("rollouts", &SearchConfig::rollouts, 1, 10000000,
           "search budget per decision in rollouts, all candidates together"),
    Number("move_time_ms", &SearchConfig::move_time_ms, 0, 3600000,
           "search budget per decision in milliseconds, whichever comes first (0: none)"),
    Number("candidates", &SearchConfig::candidates, 0, 32,
           "search the policy's M most probable actions and its own choice (0: every legal "
           "action)"),
    Number("threshold", &SearchConfig::threshold, 0, 1000,
           "standard errors by which the best candidate must beat the policy's own choice to "
           "replace it"),
    Text("rollout_policy", &SearchConfig::rollout_policy,
         "who plays the rollouts, both seats: model (the model with the player's --policy), the "
         "model with another policy (current, current-greedy, average, average-greedy), or a bot; "
         "default: the searching player's own policy"),
    Text("opponent_rollout_policy", &SearchConfig::opponent_rollout_policy,
         "who plays the opponent's side of the rollouts, named as for --rollout-policy; several, "
         "comma-separated: infer which one the opponent plays from its moves; default: "
         "--rollout-policy's"),
    Number("opponent_worlds", &SearchConfig::opponent_worlds, 1, 1000000,
           "opponent inference: worlds with a past drawn per decision to weigh the opponent's "
           "policies by its moves"),
    Choice<&SearchConfig::objective>(
        "objective", kObjectiveNames,
        "what the search maximises: score (the mean score difference) or win (the share of "
        "rollouts won)"),
    Text("rollout_model", &SearchConfig::rollout_model,
         "a networks file (e.g. a student of lcfr distill) that plays the rollouts' model sides "
         "instead of the player's model; default: the model card's (docs/search.md)"),
    Number("search_width", &SearchConfig::width, 1, 65536,
           "rollouts in flight per thread (fibers)"),
    Number("workers", &SearchConfig::workers, 1, 1024, "search threads per decision"),
};

constexpr Field<SearchConfig> kExperimentalFields[] = {
    Choice<&SearchConfig::allocation>(
        "allocation", kAllocationNames,
        "how the rollouts are spread over the candidates: uniform, or racing (a candidate drops "
        "out once it trails clearly; the decision ends when none but the policy's choice is left "
        "or one beats it clearly)"),
    Number("drop_threshold", &SearchConfig::drop_threshold, 0.001, 100,
           "racing: standard errors by which a candidate must trail the best one, or the policy's "
           "choice, to stop being rolled out"),
    Number("rollout_depth", &SearchConfig::rollout_depth, 0, 100000,
           "cut each rollout after this many decisions and score the rest with the model's value "
           "network (0: every rollout to the end)"),
    Number("belief", &SearchConfig::belief, 0, 1000000,
           "weigh the worlds by the opponent's moves: draw this many worlds with a past, each "
           "weighted by how likely the model finds the opponent's moves in it (0: uniform worlds)"),
    Number("belief_power", &SearchConfig::belief_power, 0.001, 1,
           "the belief's likelihoods raised to this power (1: Bayes)"),
    Flag("oracle_hand", &SearchConfig::oracle_hand,
         "eval, a diagnostic that cheats: the worlds deal the opponent's true hand (only the "
         "deck's order is drawn); not a way to play"),
    Flag("oracle_deck", &SearchConfig::oracle_deck,
         "eval, with --oracle-hand: the deck's true order too (a clairvoyant's bound); not a way "
         "to play"),
};

bool KnownBot(const std::string& name) { return play::MakeBot(name).ok(); }

// The first number of `s` outside its row's range, as "--flag must be in [min, max] (got v)".
std::optional<absl::Status> Range(const SearchConfig& s,
                                  std::span<const Field<SearchConfig>> fields) {
  for (const Field<SearchConfig>& f : fields) {
    std::optional<double> number;
    if (auto m = std::get_if<int SearchConfig::*>(&f.member)) number = s.**m;
    if (auto m = std::get_if<double SearchConfig::*>(&f.member)) number = s.**m;
    if (number && !(*number >= f.min && *number <= f.max)) {
      return absl::InvalidArgumentError(StrCat(FlagName(f.key), " must be in [", NumberText(f.min),
                                               ", ", NumberText(f.max), "] (got ", ValueText(s, f),
                                               ")"));
    }
  }
  return std::nullopt;
}

}  // namespace

std::span<const Field<SearchConfig>> SearchFields() { return kFields; }
std::span<const Field<SearchConfig>> ExperimentalSearchFields() { return kExperimentalFields; }

std::string FlagName(std::string_view key) {
  std::string flag = "--";
  for (const char c : key) flag += c == '_' ? '-' : c;
  return flag;
}

std::string OptionsMarkdown() {
  const SearchConfig defaults;
  std::string table = "| flag | default | meaning |\n|---|---|---|\n";
  for (const Field<SearchConfig>& f : kFields) {
    std::string value = ValueText(defaults, f);
    if (value == "\"\"") value = "none";
    table += StrCat("| `", FlagName(f.key), "` | ", value, " | ", f.help, " |\n");
  }
  return table;
}

bool NamesModel(const std::string& name) {
  return name == "model" || play::PlayPolicy::Parse(name).ok();
}

std::vector<std::string> SearchConfig::opponent_policies() const {
  if (opponent_rollout_policy.empty()) return {rollout_policy};
  std::vector<std::string> names;
  size_t begin = 0;
  for (;;) {
    const size_t comma = opponent_rollout_policy.find(',', begin);
    names.push_back(opponent_rollout_policy.substr(begin, comma - begin));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return names;
}

bool SearchConfig::rollouts_name_model() const {
  if (NamesModel(rollout_policy)) return true;
  for (const std::string& name : opponent_policies()) {
    if (NamesModel(name)) return true;
  }
  return false;
}

absl::Status SearchConfig::Validate() const {
  for (auto fields : {SearchFields(), ExperimentalSearchFields()}) {
    if (std::optional<absl::Status> bad = Range(*this, fields)) return *bad;
  }
  auto bad = [](auto&&... parts) { return absl::InvalidArgumentError(StrCat(parts...)); };
  auto unknown = [&](const char* flag, const std::string& name) {
    std::string known;
    for (const std::string& bot : play::BotNames()) known += ", " + bot;
    return bad(flag, ": unknown policy '", name,
               "' (known: model, current, current-greedy, average, average-greedy", known, ")");
  };
  if (!rollout_policy.empty() && !NamesModel(rollout_policy) && !KnownBot(rollout_policy)) {
    return unknown("--rollout-policy", rollout_policy);
  }
  if (!opponent_rollout_policy.empty()) {
    const std::vector<std::string> names = opponent_policies();
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i].empty()) {
        return bad("--opponent-rollout-policy: an empty name in '", opponent_rollout_policy,
                   "' (several policies are separated by single commas)");
      }
      if (!NamesModel(names[i]) && !KnownBot(names[i])) {
        return unknown("--opponent-rollout-policy", names[i]);
      }
      if (std::find(names.begin(), names.begin() + i, names[i]) != names.begin() + i) {
        return bad("--opponent-rollout-policy: '", names[i], "' is named twice in '",
                   opponent_rollout_policy, "'");
      }
    }
    if (names.size() > 16) {
      return bad("--opponent-rollout-policy: at most 16 policies to infer among (got ",
                 names.size(), ")");
    }
  }
  if (rollout_depth > 0 && objective != Objective::kScore) {
    return bad("--rollout-depth needs --objective score (the value network estimates the score)");
  }
  if (oracle_deck && !oracle_hand) {
    return bad("--oracle-deck needs --oracle-hand (it reads the deck's order on top of the hand)");
  }
  if (oracle_hand && belief > 0) {
    return bad(
        "--oracle-hand and --belief cannot be combined: the oracle deals the opponent's "
        "true hand, the belief draws its own");
  }
  return absl::OkStatus();
}

std::string Blueprint::Name() const {
  return is_model() ? StrCat("model (", play.Name(), ")") : bot;
}

void Blueprint::SetValue(const traversal::CfrConfig& cfr) {
  value = cfr.scheme == traversal::Scheme::kValue    ? Value::kInfoset
          : cfr.scheme == traversal::Scheme::kEscher ? Value::kHistory
                                                     : Value::kNone;
  value_scale =
      cfr.payoff_scale > 0 ? cfr.payoff_scale / engine::LostCities::DefaultPayoffScale() : 1.0;
}

}  // namespace lcfr::search
