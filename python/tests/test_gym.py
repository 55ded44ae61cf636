"""The Gymnasium adapters (lcfr.gym)."""

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="gymnasium is a test dependency (scripts/setup_python.sh)")

import lcfr.gym  # noqa: E402


def test_spaces_hold_what_the_envs_return():
    env = lcfr.gym.LostCitiesEnv("heuristic-balanced")
    obs, _ = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.observation_space.contains(obs)
    with pytest.raises(ValueError, match="is not legal there"):
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    vec = lcfr.gym.LostCitiesVectorEnv(4, opponent="random")
    batch, _ = vec.reset(seed=2)
    assert vec.observation_space.contains(batch)


def test_single_env_plays_whole_games():
    env = lcfr.gym.LostCitiesEnv("random")
    obs, info = env.reset(seed=3)
    assert obs["observation"].shape == (618,) and obs["action_mask"].sum() > 0
    first = obs["observation"].copy()
    rewards, games = [], 0
    while games < 3:
        action = int(np.flatnonzero(obs["action_mask"])[0])
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated:
            a, b = info["final_scores"]
            mine = a - b if info["learner_seat"] == 0 else b - a
            assert reward == mine
            rewards.append(reward)
            games += 1
            obs, info = env.reset()
        else:
            assert reward == 0
    # The same seed, the same first game.
    again, _ = env.reset(seed=3)
    np.testing.assert_array_equal(again["observation"], first)


def test_vector_env():
    env = lcfr.gym.LostCitiesVectorEnv(16, opponent="heuristic-cautious", seed=1)
    obs, info = env.reset()
    assert obs["observation"].shape == (16, 618)
    ended = 0
    for _ in range(200):
        actions = obs["action_mask"].argmax(axis=1)
        obs, reward, terminated, truncated, info = env.step(actions)
        ended += int(terminated.sum())
        assert not reward[~terminated].any()
    assert ended > 0
