// lcfr.Bot, lcfr.Agent and lcfr.match: the scripted bots (play/bots.h), the trained agent
// (python/src/agent.h) and matches on paired deals (play/match.h), the games of `lcfr match` and
// `lcfr eval` for the same seed.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/stream_cat.h"
#include "nanobind/ndarray.h"
#include "nanobind/stl/optional.h"
#include "nanobind/stl/shared_ptr.h"
#include "nanobind/stl/string.h"
#include "nanobind/stl/vector.h"
#include "play/match.h"
#include "play/network_match.h"
#include "python/src/agent.h"
#include "python/src/common.h"
#include "python/src/game_state.h"
#include "training/compose.h"

namespace lcfr::python {
namespace {

// A scripted bot with its own random stream.
struct PyBot {
  std::string name;
  std::unique_ptr<play::Bot> bot;
  Rng rng;
};

void CheckRules(const engine::Rules& player, const GameState& s) {
  if (!(player == s.game->rules())) {
    Raise(absl::InvalidArgumentError(StreamCat("the rules (", engine::ToString(s.game->rules()),
                                               ") are not the agent's (", engine::ToString(player),
                                               "): it plays only the rules it was trained on")));
  }
}

void CheckLive(const GameState& s) {
  if (engine::LostCities::IsTerminal(s.state))
    throw nb::value_error("the game is over: no decision");
}

// A match's player: a bot's name, an lcfr.Bot or an lcfr.Agent.
struct MatchPlayer {
  std::string name;
  std::unique_ptr<play::Bot> owned;  // made from a name
  play::Bot* bot = nullptr;
  Agent* agent = nullptr;
};

MatchPlayer ToPlayer(nb::handle h, const char* which) {
  MatchPlayer p;
  if (nb::isinstance<nb::str>(h)) {
    p.name = nb::cast<std::string>(h);
    absl::StatusOr<std::unique_ptr<play::Bot>> bot = play::MakeBot(p.name);
    if (!bot.ok())
      Raise(
          absl::InvalidArgumentError(StreamCat(which, ": ", std::string(bot.status().message()))));
    p.owned = *std::move(bot);
    p.bot = p.owned.get();
  } else if (nb::isinstance<PyBot>(h)) {
    PyBot& b = nb::cast<PyBot&>(h);
    p.name = b.name;
    p.bot = b.bot.get();
  } else if (nb::isinstance<Agent>(h)) {
    p.agent = &nb::cast<Agent&>(h);
    p.name = p.agent->name();
    p.bot = &p.agent->bot();
  } else {
    throw nb::type_error(StreamCat(which, ": a bot's name, an lcfr.Bot or an lcfr.Agent, not ",
                                   nb::inst_name(h).c_str())
                             .c_str());
  }
  return p;
}

nb::dict ResultDict(const play::MatchResult& r, const std::string& a, const std::string& b,
                    uint64_t seed) {
  const play::Interval ci = r.win_rate_ci();
  nb::dict d;
  d["a"] = a;
  d["b"] = b;
  d["games"] = r.games;
  d["wins"] = r.wins;
  d["losses"] = r.losses;
  d["ties"] = r.ties;
  d["win_rate"] = r.win_rate();
  d["ci_low"] = ci.low;
  d["ci_high"] = ci.high;
  d["mean_score_diff"] = r.mean_score_diff();
  d["score_diff_ci"] = r.score_diff_ci_half_width();
  d["mean_score_a"] = r.games ? r.score_a_sum / r.games : 0.0;
  d["mean_score_b"] = r.games ? r.score_b_sum / r.games : 0.0;
  d["mean_decisions"] = r.mean_decisions();
  d["capped"] = r.capped;
  d["seed"] = seed;
  nb::list games;
  for (const play::GameResult& g : r.per_game) {
    games.append(nb::make_tuple(g.score_a, g.score_b, g.decisions, g.capped));
  }
  d["per_game"] = games;
  return d;
}

nb::dict Match(nb::handle a_handle, nb::handle b_handle, int games, uint64_t seed, int workers,
               std::optional<engine::Rules> rules) {
  if (games < 2 || games % 2 != 0) {
    throw nb::value_error(
        StreamCat("games: ", games, " is not an even number >= 2 (paired deals)").c_str());
  }
  if (workers < 1 || workers > 1024) throw nb::value_error("workers: in [1, 1024]");
  MatchPlayer a = ToPlayer(a_handle, "a"), b = ToPlayer(b_handle, "b");
  engine::Rules game_rules = rules.value_or(engine::Rules{});
  for (const MatchPlayer* p : {&a, &b}) {
    if (p->agent == nullptr) continue;
    if (rules.has_value() && !(*rules == p->agent->rules())) {
      Raise(absl::InvalidArgumentError(StreamCat("rules: (", engine::ToString(*rules),
                                                 ") are not the agent's (",
                                                 engine::ToString(p->agent->rules()), ")")));
    }
    game_rules = p->agent->rules();
  }
  if (a.agent && b.agent && !(a.agent->rules() == b.agent->rules())) {
    Raise(absl::InvalidArgumentError("the two agents play different rules"));
  }
  const engine::LostCities game(game_rules);
  play::MatchResult result;
  {
    nb::gil_scoped_release release;
    std::unique_lock<std::mutex> lock_a, lock_b;  // the agents play this match alone
    if (a.agent != nullptr) lock_a = a.agent->Lock();
    if (b.agent != nullptr && b.agent != a.agent) lock_b = b.agent->Lock();
    if (a.agent != nullptr && !a.agent->searching() && b.agent == nullptr) {
      // lcfr eval's games: the network's decisions batched over games in flight.
      inference::InferenceConfig inference;
      inference.device = a.agent->device();
      absl::StatusOr<training::Evaluators> made =
          training::MakeEvaluators(a.agent->store(), inference, workers);
      if (!made.ok()) {
        nb::gil_scoped_acquire acquire;
        Raise(made.status());
      }
      absl::StatusOr<play::NetworkMatchResult> played = play::PlayNetworkMatch(
          game, training::HandOut(*made), b.name, games, seed, workers, 64, a.agent->play());
      if (!played.ok()) {
        nb::gil_scoped_acquire acquire;
        Raise(played.status());
      }
      result = std::move(played->match);
    } else {
      result = play::PlayMatch(game, *a.bot, *b.bot, games, seed);
    }
  }
  return ResultDict(result, a.name, b.name, seed);
}

// lcfr.bots and lcfr.Bot.
void BindBots(nb::module_& m) {
  m.def("bots", &play::BotNames, "The scripted bots' names.");

  nb::class_<PyBot>(m, "Bot", "A scripted bot (play/bots.h): Bot('heuristic-cautious', seed=0).")
      .def(
          "__init__",
          [](PyBot* self, const std::string& name, uint64_t seed) {
            absl::StatusOr<std::unique_ptr<play::Bot>> bot = play::MakeBot(name);
            if (!bot.ok()) Raise(bot.status());
            new (self) PyBot{name, *std::move(bot), Rng(seed)};
          },
          nb::arg("name"), nb::arg("seed") = 0)
      .def_prop_ro("name", [](const PyBot& b) { return b.name; })
      .def(
          "act",
          [](PyBot& b, const GameState& s) {
            CheckLive(s);
            return b.bot->ActOnState(*s.game, s.state, b.rng);
          },
          nb::arg("state"), "Its action for the player to move (it reads only that player's view).")
      .def(
          "probability",
          [](PyBot& b, const GameState& s, int action) {
            CheckLive(s);
            return b.bot->Probability(*s.game, s.state, action);
          },
          nb::arg("state"), nb::arg("action"))
      .def("__repr__", [](const PyBot& b) { return "lcfr.Bot('" + b.name + "')"; });
}

// lcfr.Agent.
void BindAgent(nb::module_& m) {
  nb::class_<Agent>(m, "Agent",
                    "A trained model or checkpoint playing its policy (docs/python.md). "
                    "Agent() is the shipped model as its card plays it.")
      .def(nb::new_([](std::optional<std::string> model, std::optional<std::string> checkpoint,
                       std::optional<engine::Rules> rules, std::optional<std::string> policy,
                       std::optional<bool> greedy, std::optional<bool> search, int rollouts,
                       const std::string& device, uint64_t seed) {
             AgentOptions o;
             o.model = model.value_or("");
             o.checkpoint = checkpoint.value_or("");
             o.rules = rules;
             o.policy = policy.value_or("");
             o.greedy = greedy;
             o.search = search;
             o.rollouts = rollouts;
             o.device = device;
             o.seed = seed;
             return std::shared_ptr<Agent>(Take(Agent::Load(o)));
           }),
           nb::arg("model") = nb::none(), nb::arg("checkpoint") = nb::none(), nb::kw_only(),
           nb::arg("rules") = nb::none(), nb::arg("policy") = nb::none(),
           nb::arg("greedy") = nb::none(), nb::arg("search") = nb::none(), nb::arg("rollouts") = 0,
           nb::arg("device") = "cpu", nb::arg("seed") = 0,
           "model: a networks file (default: the shipped model of the rules, "
           "models/lost-cities.pt or models/lost-cities-6.pt); checkpoint: a checkpoint or run "
           "directory; rules: the game's (a model's must match; default: the model's, or the "
           "classic rules); policy: 'current' or 'average' (default: the card's); "
           "greedy, search: default the card's; rollouts: the search's budget; device: cpu, cuda "
           "or auto.")
      .def_prop_ro("rules", &Agent::rules)
      .def_prop_ro("policy", [](const Agent& a) { return a.play().Name(); })
      .def_prop_ro("searching", &Agent::searching)
      .def_prop_ro("device",
                   [](const Agent& a) { return std::string(inference::DeviceName(a.device())); })
      .def_prop_ro("name", &Agent::name)
      .def(
          "act",
          [](Agent& a, const GameState& s) {
            CheckLive(s);
            CheckRules(a.rules(), s);
            nb::gil_scoped_release release;
            return a.Act(s.state);
          },
          nb::arg("state"), "Its action for the player to move.")
      .def(
          "act_batch",
          [](Agent& a, const std::vector<const GameState*>& states) {
            std::vector<const engine::State*> raw;
            raw.reserve(states.size());
            for (const GameState* s : states) {
              CheckLive(*s);
              CheckRules(a.rules(), *s);
              raw.push_back(&s->state);
            }
            auto* actions = new std::vector<int32_t>(states.size());
            nb::capsule owner(
                actions, [](void* p) noexcept { delete static_cast<std::vector<int32_t>*>(p); });
            {
              nb::gil_scoped_release release;
              std::vector<Rng*> rngs(raw.size(), nullptr);
              std::vector<int> out(raw.size());
              a.ActBatch(raw, rngs, out);
              std::copy(out.begin(), out.end(), actions->begin());
            }
            return nb::ndarray<nb::numpy, int32_t, nb::ndim<1>>(actions->data(), {actions->size()},
                                                                owner);
          },
          nb::arg("states"),
          "Its actions for a list of states: without search, one forward for all of them.")
      .def(
          "probabilities",
          [](Agent& a, const GameState& s) {
            CheckLive(s);
            CheckRules(a.rules(), s);
            auto* p = new std::vector<float>(a.Probabilities(s.state));
            nb::capsule owner(p,
                              [](void* q) noexcept { delete static_cast<std::vector<float>*>(q); });
            return nb::ndarray<nb::numpy, float, nb::ndim<1>>(p->data(), {p->size()}, owner);
          },
          nb::arg("state"),
          "The distribution its network policy plays (num_actions entries, 0 where illegal), "
          "before greedy play and search.")
      .def("__repr__", [](const Agent& a) { return "lcfr.Agent(" + a.name() + ")"; });
}

}  // namespace

void BindPlayers(nb::module_& m) {
  BindBots(m);
  BindAgent(m);
  m.def("match", &Match, nb::arg("a"), nb::arg("b"), nb::kw_only(), nb::arg("games") = 1000,
        nb::arg("seed") = 1, nb::arg("workers") = 2, nb::arg("rules") = nb::none(),
        "Plays `games` games of a against b on paired deals, seats swapped (game 2k and 2k+1 "
        "share a deal): the figures of lcfr match, and for an agent without search against a bot "
        "those of lcfr eval, game for game for the same seed. a, b: a bot's name, an lcfr.Bot or "
        "an lcfr.Agent. A dict: win_rate, ci_low, ci_high, mean_score_diff, ..., per_game.");
}

}  // namespace lcfr::python
