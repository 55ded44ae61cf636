"""Lost Cities in OpenSpiel: its own API test, tensors, and the agent as an OpenSpiel bot."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is a test dependency (scripts/setup_python.sh)")

import lcfr  # noqa: E402
import lcfr.openspiel  # noqa: E402,F401  (registers python_lost_cities)
from open_spiel.python.algorithms import evaluate_bots  # noqa: E402


def test_openspiels_random_simulation_test_with_serialization():
    game = pyspiel.load_game("python_lost_cities")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_six_colours_and_parameters():
    game = pyspiel.load_game("python_lost_cities", {"colors": 6, "hand_size": 7})
    assert game.num_distinct_actions() == 2 * 7 + 1 + 6
    assert game.get_parameters()["colors"] == 6
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    with pytest.raises(Exception, match="out of range"):
        pyspiel.load_game("python_lost_cities", {"colors": 9})


def test_tensors_are_the_engines_encoding():
    game = pyspiel.load_game("python_lost_cities")
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    assert state.current_player() == 0
    tensor = np.asarray(state.information_state_tensor(0))
    np.testing.assert_array_equal(tensor, state.lcfr_state.encode())
    np.testing.assert_array_equal(np.asarray(state.observation_tensor(1)),
                                  state.lcfr_state.encode(player=1))
    assert state.information_state_string(0) != state.information_state_string(1)
    # A deck draw: the player's action, then the card, by chance, uniform over the deck.
    state.apply_action(1)  # discard the card in slot 0
    state.apply_action(16)  # draw from the deck
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert sum(p for _, p in outcomes) == pytest.approx(1)
    # 44 cards in the deck; a color's wagers there are one outcome, weighed by their number.
    names = [state.lcfr_state.game.card_name(c) for c in state.lcfr_state.deck_cards()]
    assert len(names) == 44 and len(outcomes) == len(set(names))
    for card, p in outcomes:
        assert p == pytest.approx(names.count(state.lcfr_state.game.card_name(card)) / 44)
    card = next(c for c, p in outcomes if p == pytest.approx(1 / 44))
    state.apply_action(card)
    assert state.current_player() == 1
    assert state.lcfr_state.game.card_name(card) in state.lcfr_state.hand(0)
    assert "drew " + state.lcfr_state.game.card_name(card) in state.information_state_string(0)
    assert "drew " + state.lcfr_state.game.card_name(card) not in state.information_state_string(1)


def test_the_agent_as_an_openspiel_bot(shipped_model):
    game = pyspiel.load_game("python_lost_cities")
    bots = [lcfr.openspiel.AgentBot(lcfr.Agent(shipped_model, greedy=True)),
            pyspiel.make_uniform_random_bot(1, 7)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.default_rng(3))
    assert returns[0] == -returns[1] and returns[0] > 0
