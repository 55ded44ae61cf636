// lcfr.Rules, lcfr.Game, lcfr.State and lcfr.GameRecord: the engine (engine/lost_cities.h), its
// cards and moves by name, the agent protocol's observation (io/agent_protocol.h) and game records
// (io/record.h).
#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "base/files.h"
#include "base/stream_cat.h"
#include "engine/worlds.h"
#include "io/agent_protocol.h"
#include "io/record.h"
#include "nanobind/ndarray.h"
#include "nanobind/stl/optional.h"
#include "nanobind/stl/shared_ptr.h"
#include "nanobind/stl/string.h"
#include "nanobind/stl/vector.h"
#include "python/src/common.h"
#include "python/src/game_state.h"

namespace lcfr::python {
namespace {

using engine::Card;
using engine::LostCities;
using engine::Rules;

nb::object JsonLoads(const std::string& text) {
  return nb::module_::import_("json").attr("loads")(text);
}

std::string JsonDumps(nb::handle value) {
  return nb::cast<std::string>(nb::module_::import_("json").attr("dumps")(value));
}

nb::dict RulesDict(const Rules& rules) {
  nb::dict out;
  for (const engine::RulesField& field : engine::RulesFields())
    out[field.name] = rules.*field.member;
  return out;
}

std::string RulesRepr(const Rules& rules) {
  std::ostringstream out;
  out << "lcfr.Rules(";
  bool first = true;
  for (const engine::RulesField& field : engine::RulesFields()) {
    out << (first ? "" : ", ") << field.name << "=" << rules.*field.member;
    first = false;
  }
  out << ")";
  return out.str();
}

std::vector<std::string> CardNames(const Rules& rules, const std::vector<Card>& cards) {
  std::vector<std::string> names;
  names.reserve(cards.size());
  for (Card c : cards) names.push_back(engine::CardName(rules, c));
  return names;
}

// Names to card ids of one rule set; repeated wagers take successive wager ids (io/record.h).
std::vector<Card> ParseCards(const Rules& rules, const std::vector<std::string>& names,
                             const char* what) {
  engine::CardPool pool(rules);
  std::vector<Card> cards;
  cards.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    absl::StatusOr<Card> card = pool.Take(names[i]);
    if (!card.ok()) {
      Raise(absl::InvalidArgumentError(
          StreamCat(what, "[", i, "]: ", std::string(card.status().message()))));
    }
    cards.push_back(*card);
  }
  return cards;
}

GamePtr MakeGame(const Rules& rules) { return std::make_shared<LostCities>(rules); }

// The float32 vector `out` (or a new one) of `size` entries; errors name the wrong shape.
using FloatVector = nb::ndarray<float, nb::numpy, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
FloatVector VectorOut(std::optional<FloatVector> out, size_t size, const char* what) {
  if (out.has_value()) {
    if (out->shape(0) != size) {
      throw nb::value_error(
          StreamCat(what, ": out has ", out->shape(0), " entries; this game needs ", size).c_str());
    }
    return *out;
  }
  float* data = new float[size]();
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<float*>(p); });
  return FloatVector(data, {size}, owner);
}

const char* PhaseName(engine::Phase phase) {
  return phase == engine::Phase::kCard ? "card" : "draw";
}

// The moves of `s`'s game as `observer` saw them (the protocol's "moves").
std::vector<engine::SeenMove> SeenMoves(const GameState& s, int observer) {
  GameState replay = GameState::FromDeck(s.game, s.deck).value();
  std::vector<engine::SeenMove> seen;
  seen.reserve(s.actions.size());
  for (int action : s.actions) {
    seen.push_back(engine::SeeMove(*s.game, replay.state, action, observer));
    s.game->ApplyUnchecked(replay.state, action);
  }
  return seen;
}

// ValueError unless `action` is legal in `s`, saying why.
void CheckLegal(const GameState& s, int action) {
  engine::State copy = s.state;
  Check(s.game->ApplyChecked(copy, action));
}

// `s` as `player` sees it: the player to move by default, else the state with `player` made the
// mover (the engine's views and protocol lines are the mover's).
engine::State AsSeenBy(const GameState& s, std::optional<int> player) {
  engine::State seen = s.state;
  if (player.has_value()) {
    if (*player != 0 && *player != 1) throw nb::value_error("player: 0 or 1");
    seen.player = static_cast<uint8_t>(*player);
  }
  return seen;
}

void BindRules(nb::module_& m) {
  nb::class_<Rules> cls(m, "Rules",
                        "A rule set of Lost Cities (docs/rules.md); every key a keyword, classic "
                        "values by default. Immutable: replace() returns a changed copy.");
  cls.def(
         "__init__",
         [](Rules* self, const nb::kwargs& kwargs) { new (self) Rules(RulesFromKwargs(kwargs)); },
         "Rules(colors=5, ranks=9, ...): ValueError names a key that is unknown or out of range.")
      .def(
          "replace",
          [](const Rules& rules, const nb::kwargs& kwargs) {
            return RulesFromKwargs(kwargs, rules);
          },
          "A copy with the keywords changed.")
      .def("as_dict", &RulesDict, "Every key and its value.")
      .def_static(
          "keys",
          [] {
            std::vector<std::string> keys;
            for (const engine::RulesField& f : engine::RulesFields()) keys.push_back(f.name);
            return keys;
          },
          "The rule keys, in docs/rules.md's order.")
      .def_prop_ro("deck_size", &Rules::deck_size)
      .def_prop_ro("num_actions", &Rules::num_actions)
      .def("__eq__", [](const Rules& a, const Rules& b) { return a == b; })
      .def("__hash__", [](const Rules& r) { return nb::hash(nb::str(RulesRepr(r).c_str())); })
      .def("__repr__", &RulesRepr)
      .def("__getstate__", &RulesDict)
      .def("__setstate__", [](Rules& self, const nb::dict& state) {
        nb::kwargs kwargs;
        for (auto [k, v] : state) kwargs[k] = v;
        new (&self) Rules(RulesFromKwargs(kwargs));
      });
  for (const engine::RulesField& field : engine::RulesFields()) {
    cls.def_prop_ro(
        field.name, [member = field.member](const Rules& r) { return r.*member; }, field.help);
  }
}

void BindGame(nb::module_& m) {
  nb::class_<LostCities>(m, "Game",
                         "The rules object: deals, names cards and actions. Game(rules) or "
                         "Game(colors=6, ...); immutable, shared by its states.")
      .def(
          "__init__",
          [](LostCities* self, std::optional<Rules> rules, const nb::kwargs& kwargs) {
            new (self) LostCities(RulesFromKwargs(kwargs, rules.value_or(Rules{})));
          },
          nb::arg("rules") = nb::none(), nb::arg("kwargs"),
          "Game(rules) or Game(colors=6, ...): the keywords change the rules given (or the "
          "classic ones).")
      .def_prop_ro("rules", &LostCities::rules)
      .def_prop_ro("num_actions", &LostCities::num_actions,
                   "The size of the action space: 2 * hand_size + 1 + colors (engine/move.h).")
      .def_prop_ro("encoding_size", &LostCities::EncodingSize,
                   "Floats in an information-state encoding (State.encode).")
      .def_prop_ro("encoding_version", &LostCities::EncodingVersion)
      .def(
          "cards", [](const LostCities& g) { return CardNames(g.rules(), g.SortedDeck()); },
          "Every card of the rules by name, in id order.")
      .def(
          "card_name",
          [](const LostCities& g, int card) {
            if (card < 0 || card >= engine::kMaxDeckSize ||
                engine::CardColor(static_cast<Card>(card)) >= g.rules().colors ||
                engine::CardIndex(static_cast<Card>(card)) >= g.rules().cards_per_color()) {
              throw nb::value_error(
                  StreamCat("card id ", card, " is not a card of these rules").c_str());
            }
            return engine::CardName(g.rules(), static_cast<Card>(card));
          },
          nb::arg("card"), "'R7', 'B*' for a card id.")
      .def(
          "card_id",
          [](const LostCities& g, const std::string& name) {
            return static_cast<int>(Take(engine::ParseCard(g.rules(), name)));
          },
          nb::arg("name"), "The id of a card name (a wager: its color's first wager).")
      .def(
          "describe_action",
          [](const LostCities& g, int action) {
            if (action < 0 || action >= g.num_actions()) {
              throw nb::value_error(
                  StreamCat("action ", action, " is not in [0, ", g.num_actions(), ")").c_str());
            }
            const engine::Move move = g.DecodeAction(action);
            static const char* kKinds[] = {"play", "discard", "draw_deck", "draw_pile"};
            return nb::make_tuple(kKinds[static_cast<int>(move.kind)], move.index);
          },
          nb::arg("action"),
          "(kind, index) of an action id: ('play', slot), ('discard', slot), ('draw_deck', 0), "
          "('draw_pile', color).")
      .def("__getstate__", [](const LostCities& g) { return RulesDict(g.rules()); })
      .def("__setstate__",
           [](LostCities& self, const nb::dict& state) {
             nb::kwargs kwargs;
             for (auto [k, v] : state) kwargs[k] = v;
             new (&self) LostCities(RulesFromKwargs(kwargs));
           })
      .def("__repr__",
           [](const LostCities& g) { return "lcfr.Game(" + RulesRepr(g.rules()) + ")"; });
}

// The game flow of lcfr.State: who moves, legal actions, apply and undo, copies and pickling.
void BindStateFlow(nb::class_<GameState>& cls) {
  cls.def_prop_ro("game", [](const GameState& s) { return s.game; })
      .def_prop_ro("rules", [](const GameState& s) { return s.game->rules(); })
      .def_prop_ro(
          "current_player", [](const GameState& s) { return int{s.state.player}; },
          "The seat to move, 0 or 1.")
      .def_prop_ro(
          "phase", [](const GameState& s) { return PhaseName(s.state.phase); },
          "'card' (play or discard) or 'draw'.")
      .def_prop_ro("is_terminal",
                   [](const GameState& s) { return LostCities::IsTerminal(s.state); })
      .def_prop_ro(
          "end_reason", [](const GameState& s) { return engine::EndReasonName(s.state.end); },
          "'not_over', 'deck_empty', 'no_legal_draw' or 'decision_cap'.")
      .def_prop_ro("decisions", [](const GameState& s) { return int{s.state.decisions}; })
      .def_prop_ro("deck_size", [](const GameState& s) { return int{s.state.deck_size}; })
      .def_prop_ro(
          "scores",
          [](const GameState& s) { return nb::make_tuple(s.state.score[0], s.state.score[1]); },
          "Both seats' scores as the game stands.")
      .def_prop_ro(
          "history", [](const GameState& s) { return s.actions; },
          "The action ids taken since the deal.")
      .def(
          "payoff",
          [](const GameState& s, int player) {
            if (player != 0 && player != 1) throw nb::value_error("player: 0 or 1");
            return LostCities::Payoff(s.state, player);
          },
          nb::arg("player"), "The seat's score minus the other's.")
      .def(
          "legal_actions", [](const GameState& s) { return s.game->LegalActions(s.state); },
          "The legal action ids, ascending; empty at the end.")
      .def(
          "legal_mask", [](const GameState& s) { return s.game->LegalMask(s.state); },
          "The legal actions as a bit mask (bit a: action a).")
      .def(
          "apply", [](GameState& s, int action) { Check(s.Apply(action)); }, nb::arg("action"),
          "Takes an action; ValueError names why an illegal one is refused.")
      .def(
          "undo",
          [](GameState& s) {
            if (s.undos.empty()) throw nb::index_error("undo: no action to undo");
            s.game->Undo(s.state, s.actions.back(), s.undos.back());
            s.actions.pop_back();
            s.undos.pop_back();
          },
          "Takes back the last action exactly.")
      // Pickled as its record (rules, deck, actions): unpickling replays it, undo history included.
      .def("__getstate__",
           [](const GameState& s) {
             return nb::make_tuple(RulesDict(s.game->rules()),
                                   std::vector<int>(s.deck.begin(), s.deck.end()), s.actions);
           })
      .def("__setstate__",
           [](GameState& self, const nb::tuple& state) {
             nb::kwargs kwargs;
             for (auto [k, v] : nb::cast<nb::dict>(state[0])) kwargs[k] = v;
             const std::vector<int> ids = nb::cast<std::vector<int>>(state[1]);
             std::vector<Card> deck;
             for (int id : ids) {
               if (id < 0 || id >= engine::kMaxDeckSize)
                 throw nb::value_error("State: a card id out of range");
               deck.push_back(static_cast<Card>(id));
             }
             GameState s =
                 Take(GameState::FromDeck(MakeGame(RulesFromKwargs(kwargs)), std::move(deck)));
             for (int action : nb::cast<std::vector<int>>(state[2])) Check(s.Apply(action));
             new (&self) GameState(std::move(s));
           })
      .def("copy", [](const GameState& s) { return GameState(s); })
      .def("__copy__", [](const GameState& s) { return GameState(s); })
      .def(
          "__deepcopy__", [](const GameState& s, nb::handle) { return GameState(s); },
          nb::arg("memo"));
}

// What a player sees of an lcfr.State: action names, the agent protocol, the encoding, its hand;
// its record and the deck's order (for callers that draw chance as it comes).
void BindStateViews(nb::class_<GameState>& cls) {
  cls.def(
         "action_name",
         [](const GameState& s, int action) {
           CheckLegal(s, action);
           return s.game->ActionName(s.state, action);
         },
         nb::arg("action"), "'play R7', 'discard B*', 'draw deck', 'draw G' for a legal action.")
      .def(
          "action_to_protocol",
          [](const GameState& s, int action) {
            CheckLegal(s, action);
            return JsonLoads(io::ActionToProtocol(*s.game, s.state, action));
          },
          nb::arg("action"), "The agent protocol's action: {'play': 'R7'}, {'draw': 'deck'}, ...")
      .def(
          "action_from_protocol",
          [](const GameState& s, nb::handle action) {
            const std::string text =
                nb::isinstance<nb::str>(action) ? nb::cast<std::string>(action) : JsonDumps(action);
            return Take(io::ActionFromProtocol(*s.game, s.state, text));
          },
          nb::arg("action"), "The action id of a protocol action (a dict or its JSON).")
      .def(
          "observation",
          [](const GameState& s, bool moves, std::optional<int> player) {
            if (LostCities::IsTerminal(s.state))
              throw nb::value_error("observation: the game is over");
            const engine::State seen = AsSeenBy(s, player);
            const std::string line =
                moves ? io::ObservationToProtocol(*s.game, seen, SeenMoves(s, seen.player))
                      : io::ObservationToProtocol(*s.game, seen);
            return JsonLoads(line);
          },
          nb::arg("moves") = true, nb::arg("player") = nb::none(),
          "What the player to move (or `player`) sees, as the agent protocol's decision "
          "(docs/agent_protocol.md): a dict; with moves, the game's moves as that player saw them.")
      .def(
          "encode",
          [](const GameState& s, std::optional<FloatVector> out, std::optional<int> player) {
            FloatVector v = VectorOut(out, s.game->EncodingSize(), "encode");
            s.game->Encode(AsSeenBy(s, player), std::span<float>(v.data(), v.shape(0)));
            return v;
          },
          nb::arg("out") = nb::none(), nb::arg("player") = nb::none(),
          "The information state of the player to move (or of `player`, as if it were to move) "
          "in engine/lost_cities.h's layout, written into `out` (float32, encoding_size "
          "entries) or a new array.")
      .def(
          "stack_deck",
          [](GameState& s, int card) {
            const int top = s.state.deck_size - 1;
            for (int j = 0; j <= top; ++j) {
              if (s.state.deck[j] != card) continue;
              std::swap(s.state.deck[j], s.state.deck[top]);
              std::swap(s.deck[j], s.deck[top]);
              return;
            }
            throw nb::value_error(
                StreamCat("stack_deck: card id ", card, " is not in the deck").c_str());
          },
          nb::arg("card"),
          "Puts a card still in the deck (by id) on its top, so that the next deck draw takes "
          "it: for callers that draw chance as it comes (lcfr.openspiel). Neither player sees "
          "the deck's order, so a card chosen uniformly makes the same game.")
      .def(
          "deck_cards",
          [](const GameState& s) {
            std::vector<int> ids(s.state.deck.begin(), s.state.deck.begin() + s.state.deck_size);
            std::sort(ids.begin(), ids.end());
            return ids;
          },
          "The ids of the cards still in the deck, ascending (hidden from both players).")
      .def(
          "hand",
          [](const GameState& s, int player) {
            if (player != 0 && player != 1) throw nb::value_error("player: 0 or 1");
            std::vector<Card> cards(s.state.hand[player].begin(),
                                    s.state.hand[player].begin() + s.state.hand_count[player]);
            return CardNames(s.game->rules(), cards);
          },
          nb::arg("player"), "A seat's hand in slot order (hidden from the other seat).")
      .def("record", &GameState::Record, "The game so far as a game record.")
      .def("__repr__", [](const GameState& s) {
        return StreamCat("lcfr.State(decisions=", int{s.state.decisions},
                         ", player=", int{s.state.player}, ", phase=", PhaseName(s.state.phase),
                         ", scores=(", s.state.score[0], ", ", s.state.score[1],
                         "), end=", engine::EndReasonName(s.state.end), ")");
      });
}

void BindState(nb::module_& m) {
  nb::class_<GameState> cls(m, "State",
                            "A game in progress: the full state (both hands, the deck order), the "
                            "deck it was dealt from and the actions since. Made by lcfr.deal.");
  BindStateFlow(cls);
  BindStateViews(cls);

  m.def(
      "deal",
      [](std::optional<Rules> rules, uint64_t seed, std::optional<std::vector<std::string>> deck) {
        GamePtr game = MakeGame(rules.value_or(Rules{}));
        if (!deck.has_value()) return GameState::FromSeed(game, seed);
        return Take(GameState::FromDeck(game, ParseCards(game->rules(), *deck, "deck")));
      },
      nb::arg("rules") = nb::none(), nb::kw_only(), nb::arg("seed") = 0,
      nb::arg("deck") = nb::none(),
      "A new game: dealt from `seed` (the engine's deal: the same seed, the same cards "
      "everywhere), or from `deck` (every card by name once, top = last).");
}

void BindRecord(nb::module_& m) {
  nb::class_<io::GameRecord>(m, "GameRecord",
                             "A deal and the actions taken (io/record.h): the JSON of lcfr replay.")
      .def_prop_ro("rules", [](const io::GameRecord& r) { return r.rules; })
      .def_prop_ro("deck", [](const io::GameRecord& r) { return CardNames(r.rules, r.deck); })
      .def_prop_ro("actions", [](const io::GameRecord& r) { return r.actions; })
      .def_static(
          "loads", [](const std::string& text) { return Take(io::ParseRecord(text)); },
          nb::arg("text"), "Parses a record; ValueError names the key that is wrong.")
      .def_static(
          "load",
          [](const std::string& path) {
            const std::string text = Take(ReadFileToString(path));
            absl::StatusOr<io::GameRecord> record = io::ParseRecord(text);
            if (!record.ok()) {
              Raise(
                  absl::InvalidArgumentError(path + ": " + std::string(record.status().message())));
            }
            return *std::move(record);
          },
          nb::arg("path"))
      .def("dumps", &io::RecordToJson)
      .def(
          "save",
          [](const io::GameRecord& r, const std::string& path) {
            Check(WriteFileAtomically(path, io::RecordToJson(r)));
          },
          nb::arg("path"), "Writes the record (whole or not at all).")
      .def(
          "replay",
          [](const io::GameRecord& r) {
            const std::string log = Take(io::ReplayLog(r));
            nb::list lines;
            std::istringstream in(log);
            for (std::string line; std::getline(in, line);) {
              if (!line.empty()) lines.append(JsonLoads(line));
            }
            return lines;
          },
          "lcfr replay's log: a dict per decision, then the result. ValueError names the step "
          "of an illegal action.")
      .def(
          "state",
          [](const io::GameRecord& r) {
            Check(engine::Validate(r.rules));
            GameState s = Take(GameState::FromDeck(MakeGame(r.rules), r.deck));
            for (size_t i = 0; i < r.actions.size(); ++i) {
              if (absl::Status st = s.Apply(r.actions[i]); !st.ok()) {
                Raise(absl::InvalidArgumentError(
                    StreamCat("actions[", i, "]: ", std::string(st.message()))));
              }
            }
            return s;
          },
          "The position the record's actions lead to.");
}

}  // namespace

absl::StatusOr<GameState> GameState::FromDeck(GamePtr game, std::vector<Card> deck) {
  absl::StatusOr<engine::State> state = game->DealFromDeck(deck);
  if (!state.ok()) return state.status();
  GameState s;
  s.game = std::move(game);
  s.state = *state;
  s.deck = std::move(deck);
  return s;
}

GameState GameState::FromSeed(GamePtr game, uint64_t seed) {
  Rng rng(seed);
  std::vector<Card> deck = game->ShuffledDeck(rng);
  return FromDeck(std::move(game), std::move(deck)).value();
}

absl::Status GameState::Apply(int action) {
  engine::State next = state;
  if (absl::Status s = game->ApplyChecked(next, action); !s.ok()) return s;
  undos.push_back(game->ApplyUnchecked(state, action));
  actions.push_back(action);
  return absl::OkStatus();
}

void BindEngine(nb::module_& m) {
  BindRules(m);
  BindGame(m);
  BindState(m);
  BindRecord(m);
}

}  // namespace lcfr::python
