"""Gymnasium adapters over lcfr.VecEnv (docs/python.md).

LostCitiesEnv is one seat of one game against an opponent (a bot's name or an lcfr.Agent), in
Gymnasium's single-agent API; LostCitiesVectorEnv is N of them in Gymnasium's vector API, stepped
by VecEnv in one call. Observations are dicts: "observation" (the engine's encoding, float32) and
"action_mask" (int8, 1 = legal), as Gymnasium's masked-action environments give them. The reward is
the learner's score minus the opponent's, at the end of the game; 0 before. Needs gymnasium.
"""

import gymnasium
import numpy as np

import lcfr


def _spaces(env):
    observation = gymnasium.spaces.Dict({
        "observation": gymnasium.spaces.Box(-np.inf, np.inf, (env.encoding_size,), np.float32),
        "action_mask": gymnasium.spaces.MultiBinary(env.num_actions),
    })
    return observation, gymnasium.spaces.Discrete(env.num_actions)


class LostCitiesEnv(gymnasium.Env):
    """One seat of a game against `opponent`; the seat alternates game by game unless fixed."""

    metadata = {"render_modes": []}

    def __init__(self, opponent="heuristic-cautious", rules=None, learner_seat="alternate"):
        self._opponent, self._rules, self._learner_seat = opponent, rules, learner_seat
        probe = lcfr.VecEnv(1, rules, opponent=opponent, learner_seat=learner_seat)
        self.observation_space, self.action_space = _spaces(probe)
        self._env = None
        self._in_game = False  # a game started and not finished

    def _observation(self):
        return {"observation": self._env.observations[0].copy(),
                "action_mask": self._env.legal[0].astype(np.int8)}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        # After an end the environment has already dealt the next game; otherwise (a seed, the
        # first reset, a game abandoned) a new one, from Gymnasium's seeded generator.
        if seed is not None or self._env is None or self._in_game:
            self._env = lcfr.VecEnv(1, self._rules, seed=int(self.np_random.integers(2**63)),
                                    opponent=self._opponent, learner_seat=self._learner_seat)
        self._in_game = True
        return self._observation(), {"learner_seat": int(self._env.learner_seats[0])}

    def step(self, action):
        seat = int(self._env.learner_seats[0])
        _, _, rewards, dones = self._env.step(np.array([action], np.int32))
        done = bool(dones[0])
        reward = float(rewards[0, seat]) if done else 0.0
        info = {"learner_seat": seat}
        if done:
            self._in_game = False
            info["final_scores"] = tuple(int(x) for x in self._env.final_scores[0])
        # At an end the observation is already the next game's (a finished game has no decision
        # to observe); reset() then starts that game.
        return self._observation(), reward, done, False, info


class LostCitiesVectorEnv(gymnasium.vector.VectorEnv):
    """N games of one seat against `opponent`, stepped in one call; games that end are dealt anew
    in the same step (Gymnasium's same-step autoreset; there is no final observation: a finished
    game has no decision to observe)."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(self, num_envs, opponent="heuristic-cautious", rules=None, seed=0,
                 learner_seat="alternate", threads=1):
        self._args = dict(rules=rules, opponent=opponent, learner_seat=learner_seat, threads=threads)
        self._env = lcfr.VecEnv(num_envs, seed=seed, **self._args)
        self.num_envs = num_envs
        self.single_observation_space, self.single_action_space = _spaces(self._env)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)

    def _observations(self):
        return {"observation": self._env.observations.copy(),
                "action_mask": self._env.legal.astype(np.int8)}

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._env = lcfr.VecEnv(self.num_envs, seed=seed, **self._args)
        else:
            self._env.reset()
        return self._observations(), {"learner_seat": self._env.learner_seats.copy()}

    def step(self, actions):
        seats = self._env.learner_seats.astype(np.int64)
        _, _, rewards, dones = self._env.step(np.asarray(actions, np.int32))
        reward = rewards[np.arange(self.num_envs), seats].astype(np.float64)
        terminated = dones.copy()
        truncated = np.zeros(self.num_envs, bool)
        info = {"learner_seat": seats, "final_scores": self._env.final_scores.copy()}
        return self._observations(), reward, terminated, truncated, info
