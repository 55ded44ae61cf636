"""lcfr.VecEnv: batched stepping into the environment's own arrays."""

import threading

import numpy as np
import pytest

import lcfr


def random_actions(legal, rng):
    # One legal action per row, uniformly.
    scores = rng.random(legal.shape) * legal
    return scores.argmax(axis=1).astype(np.int32)


def run(env, steps, seed):
    rng = np.random.default_rng(seed)
    obs, legal, rewards, dones = env.reset()
    trace = []
    for _ in range(steps):
        obs, legal, rewards, dones = env.step(random_actions(legal, rng))
        trace.append((obs.copy(), rewards.copy(), dones.copy()))
    return trace


def test_shapes_views_and_no_copy():
    env = lcfr.VecEnv(8, seed=1)
    obs, legal, rewards, dones = env.reset()
    assert obs.shape == (8, 618) and obs.dtype == np.float32
    assert legal.shape == (8, 22) and legal.dtype == np.bool_
    assert rewards.shape == (8, 2) and dones.shape == (8,)
    assert np.shares_memory(obs, env.observations)
    obs2, legal2, _, _ = env.step(random_actions(legal, np.random.default_rng(0)))
    assert np.shares_memory(obs2, obs)  # the same buffer, rewritten in place
    with pytest.raises(ValueError, match="read-only"):
        obs[0, 0] = 1.0
    assert env.players.dtype == np.int8
    assert set(env.players.tolist()) <= {0, 1}


def test_games_end_reset_and_pay_both_seats():
    env = lcfr.VecEnv(16, seed=2)
    rng = np.random.default_rng(3)
    _, legal, _, _ = env.reset()
    finished = 0
    for _ in range(400):
        _, legal, rewards, dones = env.step(random_actions(legal, rng))
        ended = np.flatnonzero(dones)
        finished += len(ended)
        for i in ended:
            a, b = env.final_scores[i]
            assert rewards[i, 0] == a - b and rewards[i, 1] == b - a
            assert env.state(i).decisions == 0  # the next game, dealt
        assert not rewards[~dones].any()
    assert finished > 0 and env.games_finished == finished


def test_deterministic_by_seed_whatever_the_threads():
    a = run(lcfr.VecEnv(32, seed=5, threads=1), 150, seed=9)
    b = run(lcfr.VecEnv(32, seed=5, threads=2), 150, seed=9)
    for (oa, ra, da), (ob, rb, db) in zip(a, b):
        np.testing.assert_array_equal(oa, ob)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(da, db)
    c = run(lcfr.VecEnv(32, seed=6), 1, seed=9)
    assert not np.array_equal(a[0][0], c[0][0])


def test_the_engines_game_step_for_step():
    env = lcfr.VecEnv(4, seed=8)
    rng = np.random.default_rng(1)
    _, legal, _, _ = env.reset()
    for _ in range(40):
        _, legal, _, dones = env.step(random_actions(legal, rng))
        assert not dones.any()
    for i in range(4):
        s = env.state(i)
        replayed = lcfr.deal(deck=s.record().deck)
        for action in s.history:
            replayed.apply(action)
        np.testing.assert_array_equal(replayed.encode(), env.observations[i])
        assert replayed.current_player == env.players[i]


def test_illegal_action_applies_nothing():
    env = lcfr.VecEnv(4, seed=1)
    obs, legal, _, _ = env.reset()
    before = obs.copy()
    actions = random_actions(legal, np.random.default_rng(0))
    actions[2] = int(np.flatnonzero(~legal[2])[0])
    with pytest.raises(ValueError, match=r"step: environment 2: action \d+ is not legal there"):
        env.step(actions)
    np.testing.assert_array_equal(env.observations, before)
    with pytest.raises(ValueError, match="3 actions for 4 environments"):
        env.step(np.zeros(3, np.int32))


def test_one_seat_against_a_bot():
    env = lcfr.VecEnv(64, seed=4, opponent="heuristic-cautious", learner_seat="alternate")
    rng = np.random.default_rng(2)
    _, legal, _, _ = env.reset()
    np.testing.assert_array_equal(env.players, env.learner_seats)
    assert set(env.learner_seats.tolist()) == {0}
    seats_seen = set()
    for _ in range(300):
        _, legal, rewards, dones = env.step(random_actions(legal, rng))
        np.testing.assert_array_equal(env.players, env.learner_seats)
        seats_seen |= set(env.learner_seats.tolist())
    assert seats_seen == {0, 1}
    with pytest.raises(ValueError, match="opponent: unknown bot"):
        lcfr.VecEnv(2, opponent="nobody")
    with pytest.raises(ValueError, match="learner_seat"):
        lcfr.VecEnv(2, opponent="random", learner_seat=2)


def test_one_seat_against_the_agent(shipped_model):
    agent = lcfr.Agent(shipped_model, greedy=True)
    env = lcfr.VecEnv(32, seed=3, opponent=agent, learner_seat=1)
    _, legal, _, _ = env.reset()
    assert (env.players == 1).all()
    rng = np.random.default_rng(5)
    for _ in range(60):
        _, legal, _, _ = env.step(random_actions(legal, rng))
        assert (env.players == 1).all()
    with pytest.raises(ValueError, match="not the environment's"):
        lcfr.VecEnv(2, lcfr.Rules(colors=6), opponent=agent)


def test_the_gil_is_released_while_stepping():
    # Two environments stepped from two Python threads at once agree with serial runs (the steps
    # run outside the GIL; bench_vec_env measures the overlap).
    envs = [lcfr.VecEnv(256, seed=s) for s in (1, 2)]
    results = {}

    def work(k):
        results[k] = run(envs[k], 20, seed=k)[-1][0]

    threads = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, s in enumerate((1, 2)):
        np.testing.assert_array_equal(results[k], run(lcfr.VecEnv(256, seed=s), 20, seed=k)[-1][0])
