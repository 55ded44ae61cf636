#include "search/report.h"

#include <algorithm>
#include <variant>

#include "fmt/core.h"

namespace lcfr::search {
namespace {

// a / b, 0 without decisions.
double Ratio(double a, int64_t b) { return b ? a / static_cast<double>(b) : 0.0; }

// A field's value as JSON of its type.
nlohmann::ordered_json FieldJson(const SearchConfig& s, const Field<SearchConfig>& f) {
  struct Visitor {
    const SearchConfig& s;
    const Field<SearchConfig>& f;
    nlohmann::ordered_json operator()(int SearchConfig::*m) const { return s.*m; }
    nlohmann::ordered_json operator()(int64_t SearchConfig::*m) const { return s.*m; }
    nlohmann::ordered_json operator()(double SearchConfig::*m) const { return s.*m; }
    nlohmann::ordered_json operator()(bool SearchConfig::*m) const { return s.*m; }
    nlohmann::ordered_json operator()(std::string SearchConfig::*m) const { return s.*m; }
    nlohmann::ordered_json operator()(std::vector<std::string> SearchConfig::*m) const {
      return s.*m;
    }
    nlohmann::ordered_json operator()(const EnumMember<SearchConfig>& m) const {
      return std::string(NameOf(f.names, m.get(s)));
    }
  };
  return std::visit(Visitor{s, f}, f.member);
}

}  // namespace

void SearchReport::Merge(const SearchReport& o) {
  decisions += o.decisions;
  searched += o.searched;
  deviations += o.deviations;
  win_objective += o.win_objective;
  card_searched += o.card_searched;
  card_deviations += o.card_deviations;
  rollouts += o.rollouts;
  rounds += o.rounds;
  cut += o.cut;
  believed += o.believed;
  belief_missing += o.belief_missing;
  belief_worlds += o.belief_worlds;
  belief_ess += o.belief_ess;
  hand_matched += o.hand_matched;
  belief_hand_match += o.belief_hand_match;
  uniform_hand_match += o.uniform_hand_match;
  hand_matched_late += o.hand_matched_late;
  belief_hand_match_late += o.belief_hand_match_late;
  uniform_hand_match_late += o.uniform_hand_match_late;
  auto add = [](std::vector<double>& sum, const std::vector<double>& more) {
    if (sum.size() < more.size()) sum.resize(more.size(), 0.0);
    for (size_t i = 0; i < more.size(); ++i) sum[i] += more[i];
  };
  inferred += o.inferred;
  add(opponent_posterior, o.opponent_posterior);
  inferred_late += o.inferred_late;
  add(opponent_posterior_late, o.opponent_posterior_late);
  policy_calls += o.policy_calls;
  batches += o.batches;
  seconds += o.seconds;
  max_seconds = std::max(max_seconds, o.max_seconds);
}

double SearchReport::mean_opponent_posterior(size_t i, bool late) const {
  const std::vector<double>& sum = late ? opponent_posterior_late : opponent_posterior;
  const int64_t n = late ? inferred_late : inferred;
  return n > 0 && i < sum.size() ? sum[i] / static_cast<double>(n) : 0.0;
}

nlohmann::ordered_json SearchReport::ToJson(const SearchConfig& config) const {
  nlohmann::ordered_json j;
  j["decisions"] = decisions;
  j["searched"] = searched;
  j["deviation_rate"] = Ratio(static_cast<double>(deviations), searched);
  // By phase: the card decisions' deviations and the draws' (the rest of the searched ones).
  j["card_deviation_rate"] = Ratio(static_cast<double>(card_deviations), card_searched);
  j["draw_deviation_rate"] =
      Ratio(static_cast<double>(deviations - card_deviations), searched - card_searched);
  j["rollouts_per_decision"] = Ratio(static_cast<double>(rollouts), searched);
  j["mean_ms"] = Ratio(1000 * seconds, searched);
  j["max_ms"] = 1000 * max_seconds;
  j["rollouts_per_s"] = seconds > 0 ? static_cast<double>(rollouts) / seconds : 0.0;
  j["rows_per_forward"] = rows_per_batch();
  // The belief's and the inference's calls are counted too: with them this exceeds the
  // rollouts' own length.
  j["policy_calls_per_rollout"] = Ratio(static_cast<double>(policy_calls), rollouts);
  j["cut_share"] = Ratio(static_cast<double>(cut), rollouts);
  j["win_objective_share"] = Ratio(static_cast<double>(win_objective), searched);
  j["belief_share"] = Ratio(static_cast<double>(believed), searched);
  j["belief_ess"] = mean_belief_ess();
  j["belief_hand_match"] = Ratio(belief_hand_match, hand_matched);
  j["uniform_hand_match"] = Ratio(uniform_hand_match, hand_matched);
  j["belief_hand_match_late"] = Ratio(belief_hand_match_late, hand_matched_late);
  j["uniform_hand_match_late"] = Ratio(uniform_hand_match_late, hand_matched_late);
  for (auto fields : {SearchFields(), ExperimentalSearchFields()}) {
    for (const Field<SearchConfig>& f : fields) j[std::string(f.key)] = FieldJson(config, f);
  }
  nlohmann::ordered_json inference = nlohmann::ordered_json::object();
  if (config.infers_opponent()) {
    const std::vector<std::string> names = config.opponent_policies();
    inference["decisions"] = inferred;
    nlohmann::ordered_json all = nlohmann::ordered_json::object();
    nlohmann::ordered_json late = nlohmann::ordered_json::object();
    for (size_t i = 0; i < names.size(); ++i) {
      all[names[i]] = mean_opponent_posterior(i);
      late[names[i]] = mean_opponent_posterior(i, /*late=*/true);
    }
    inference["posterior"] = all;
    inference["posterior_late"] = late;
  }
  j["opponent_inference"] = inference;
  return j;
}

std::string SearchReport::ToText(const SearchConfig& config) const {
  std::string text = fmt::format(
      "  search         {} decisions searched of {}, {:.1f}% left the policy's choice ({:.1f}% "
      "of card decisions, {:.1f}% of draws); {:.0f} rollouts each, {:.0f} ms mean, {:.0f} ms "
      "max; {:.0f} rollouts/s, {:.1f} rows per forward\n",
      searched, decisions, 100 * Ratio(static_cast<double>(deviations), searched),
      100 * Ratio(static_cast<double>(card_deviations), card_searched),
      100 * Ratio(static_cast<double>(deviations - card_deviations), searched - card_searched),
      Ratio(static_cast<double>(rollouts), searched), Ratio(1000 * seconds, searched),
      1000 * max_seconds, seconds > 0 ? static_cast<double>(rollouts) / seconds : 0.0,
      rows_per_batch());
  if (believed > 0) {
    text += fmt::format(
        "  belief         {:.0f}% of searched decisions; {:.1f} effective worlds; its worlds "
        "deal {:.1f}% of the opponent's unknown cards right, uniform worlds {:.1f}% ({:.1f}% "
        "and {:.1f}% from the 40th decision on; read from the true hand, a diagnostic)\n",
        100 * Ratio(static_cast<double>(believed), searched), mean_belief_ess(),
        100 * Ratio(belief_hand_match, hand_matched), 100 * Ratio(uniform_hand_match, hand_matched),
        100 * Ratio(belief_hand_match_late, hand_matched_late),
        100 * Ratio(uniform_hand_match_late, hand_matched_late));
  }
  if (config.oracle_deck) {
    text +=
        "  oracle deck    the search read the opponent's true hand and the deck's order "
        "(--oracle-hand --oracle-deck): a diagnostic that cheats, not a player's strength\n";
  } else if (config.oracle_hand) {
    text +=
        "  oracle hand    the search read the opponent's true hand (--oracle-hand): a "
        "diagnostic that cheats, not a player's strength\n";
  }
  return text;
}

}  // namespace lcfr::search
