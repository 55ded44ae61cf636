// lcfr.VecEnv: N games stepped per call (python/src/vec_env.h), its buffers seen as NumPy arrays
// without a copy, the GIL released while it steps.
#include <memory>
#include <string>

#include "base/stream_cat.h"
#include "nanobind/ndarray.h"
#include "nanobind/stl/optional.h"
#include "nanobind/stl/shared_ptr.h"
#include "nanobind/stl/string.h"
#include "nanobind/stl/vector.h"
#include "python/src/common.h"
#include "python/src/game_state.h"
#include "python/src/vec_env.h"

namespace lcfr::python {
namespace {

// A read-only view of `data` ([rows] or [rows, cols]) that keeps the environment alive.
template <typename T>
nb::ndarray<nb::numpy, const T> View(VecEnv& env, T* data, size_t rows, size_t cols = 0) {
  nb::object owner = nb::find(&env);
  if (cols == 0) return nb::ndarray<nb::numpy, const T>(data, {rows}, owner);
  return nb::ndarray<nb::numpy, const T>(data, {rows, cols}, owner);
}

using ActionArray = nb::ndarray<const int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

nb::tuple Outputs(VecEnv& env) {
  const size_t n = env.num_envs();
  return nb::make_tuple(
      View(env, env.observations(), n, env.game().EncodingSize()),
      View(env, reinterpret_cast<bool*>(env.legal()), n, env.game().num_actions()),
      View(env, env.rewards(), n, 2), View(env, reinterpret_cast<bool*>(env.dones()), n));
}

// lcfr.VecEnv(...): the options from Python's arguments.
std::shared_ptr<VecEnv> MakeVecEnv(int num_envs, std::optional<engine::Rules> rules, uint64_t seed,
                                   nb::handle opponent, nb::handle learner_seat, int threads) {
  VecEnvOptions o;
  o.num_envs = num_envs;
  o.rules = rules.value_or(engine::Rules{});
  o.seed = seed;
  o.threads = threads;
  if (nb::isinstance<nb::str>(learner_seat)) {
    if (nb::cast<std::string>(learner_seat) != "alternate") {
      throw nb::value_error("learner_seat: 0, 1 or 'alternate'");
    }
    o.learner_seat = -1;
  } else {
    o.learner_seat = nb::cast<int>(learner_seat);
    if (o.learner_seat != 0 && o.learner_seat != 1) {
      throw nb::value_error("learner_seat: 0, 1 or 'alternate'");
    }
  }
  if (nb::isinstance<nb::str>(opponent)) {
    o.opponent_bot = nb::cast<std::string>(opponent);
  } else if (nb::isinstance<Agent>(opponent)) {
    o.opponent_agent = nb::cast<std::shared_ptr<Agent>>(opponent);
  } else if (!opponent.is_none()) {
    throw nb::type_error("opponent: None, a bot's name or an lcfr.Agent");
  }
  return std::shared_ptr<VecEnv>(Take(VecEnv::Create(o)));
}

}  // namespace

void BindVecEnv(nb::module_& m) {
  nb::class_<VecEnv>(m, "VecEnv",
                     "N games of Lost Cities stepped per call (docs/python.md). Its arrays "
                     "(observations, legal, rewards, dones, players, ...) are read-only views of "
                     "buffers it owns, rewritten in place by every step.")
      .def(nb::new_(&MakeVecEnv), nb::arg("num_envs"), nb::arg("rules") = nb::none(), nb::kw_only(),
           nb::arg("seed") = 0, nb::arg("opponent") = nb::none(),
           nb::arg("learner_seat") = "alternate", nb::arg("threads") = 1,
           "num_envs games of `rules` (classic by default). opponent: None (both seats learn: "
           "every decision is the caller's), a bot's name or an lcfr.Agent (it plays the seat "
           "that is not learner_seat: 0, 1, or 'alternate' game by game). Deterministic for a "
           "seed, whatever `threads`.")
      .def_prop_ro("num_envs", &VecEnv::num_envs)
      .def_prop_ro("rules", [](const VecEnv& e) { return e.game().rules(); })
      .def_prop_ro("encoding_size", [](const VecEnv& e) { return e.game().EncodingSize(); })
      .def_prop_ro("num_actions", [](const VecEnv& e) { return e.game().num_actions(); })
      .def_prop_ro(
          "observations",
          [](VecEnv& e) {
            return View(e, e.observations(), e.num_envs(), e.game().EncodingSize());
          },
          "float32 [N, encoding_size]: the information state of the player to move.")
      .def_prop_ro(
          "legal",
          [](VecEnv& e) {
            return View(e, reinterpret_cast<bool*>(e.legal()), e.num_envs(),
                        e.game().num_actions());
          },
          "bool [N, num_actions]: the legal actions.")
      .def_prop_ro(
          "players", [](VecEnv& e) { return View(e, e.players(), e.num_envs()); },
          "int8 [N]: the seat to move.")
      .def_prop_ro(
          "rewards", [](VecEnv& e) { return View(e, e.rewards(), e.num_envs(), 2); },
          "float32 [N, 2]: each seat's score minus the other's where the last step ended "
          "a game, else 0.")
      .def_prop_ro(
          "dones",
          [](VecEnv& e) { return View(e, reinterpret_cast<bool*>(e.dones()), e.num_envs()); },
          "bool [N]: the last step ended a game (the observation is the next game's).")
      .def_prop_ro(
          "final_scores", [](VecEnv& e) { return View(e, e.final_scores(), e.num_envs(), 2); },
          "int32 [N, 2]: both seats' scores of the game the last step ended.")
      .def_prop_ro(
          "learner_seats", [](VecEnv& e) { return View(e, e.learner_seats(), e.num_envs()); },
          "int8 [N]: the learner's seat in each game (with an opponent).")
      .def_prop_ro("games_finished", &VecEnv::games_finished)
      .def(
          "reset",
          [](VecEnv& e) {
            {
              nb::gil_scoped_release release;
              e.Reset();
            }
            return Outputs(e);
          },
          "Deals every game anew (the seed's first games): (observations, legal, rewards, dones).")
      .def(
          "step",
          [](VecEnv& e, ActionArray actions) {
            if (actions.shape(0) != static_cast<size_t>(e.num_envs())) {
              throw nb::value_error(StreamCat("step: ", actions.shape(0), " actions for ",
                                              e.num_envs(), " environments")
                                        .c_str());
            }
            absl::Status status;
            {
              nb::gil_scoped_release release;
              status = e.Step(actions.data());
            }
            Check(status);
            return Outputs(e);
          },
          nb::arg("actions"),
          "Takes one action per game (int32 [N]); nothing is applied if one is illegal "
          "(ValueError). Returns (observations, legal, rewards, dones), views of the buffers.")
      .def(
          "state",
          [](const VecEnv& e, int i) {
            if (i < 0 || i >= e.num_envs()) throw nb::index_error("state: no such environment");
            // Replayed from its deal, so that the copy can undo and write its record.
            GameState s = Take(GameState::FromDeck(
                std::make_shared<engine::LostCities>(e.game().rules()), e.deck(i)));
            for (int action : e.actions(i)) Check(s.Apply(action));
            return s;
          },
          nb::arg("i"), "A copy of game i as it stands.");
}

}  // namespace lcfr::python
