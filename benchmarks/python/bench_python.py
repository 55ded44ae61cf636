"""The Python package against the C++ it wraps, side by side in one run (benchmarks/README.md).

    PYTHONPATH=build/python:$HOME/.cache/lcfr/python-cp311 \
        python3 benchmarks/python/bench_python.py [--build build] [--rounds 3] [--seconds 3]

1. lcfr.VecEnv at N = 4096 with the encodings (the first legal action each decision, so that
   the caller's own work is one NumPy argmax) against the engine's own loop of the same work in
   C++ (bench_engine's BM_StepLoop), on 1 and 2 threads, and against a plain-Python Lost Cities
   engine written here as a Python programmer would (lists and dicts), on 256 games.
2. lcfr.Agent.act_batch on 256 states against the C++ evaluator on 256 rows of the same network
   shape (bench_policy_boundary's BM_CardsBatchedForward/256).
Each round runs every variant once, alternating; the medians are printed with the ratios.
"""

import argparse
import json
import random
import statistics
import subprocess
import time

import numpy as np

import lcfr

COLORS, RANKS, WAGERS, MIN_RANK, HAND = 5, 9, 3, 2, 8


class PlainLostCities:
    """Lost Cities in plain Python: a state of lists and dicts, its legal actions, apply, and an
    encoding (card locations one-hot, per color sums, the legal mask) as a list of floats."""

    def __init__(self, rng):
        self.rng = rng
        self.reset()

    def reset(self):
        deck = [(c, v) for c in range(COLORS) for v in [0] * WAGERS + list(range(MIN_RANK, MIN_RANK + RANKS))]
        self.rng.shuffle(deck)
        self.hands = [sorted(deck[-2 * HAND::2]), sorted(deck[-2 * HAND + 1::2])]
        self.deck = deck[:-2 * HAND]
        self.expeditions = [{c: [] for c in range(COLORS)} for _ in range(2)]
        self.piles = {c: [] for c in range(COLORS)}
        self.player, self.phase, self.last_discard = 0, "card", None

    def playable(self, card):
        exp = self.expeditions[self.player][card[0]]
        return not exp or card[1] >= exp[-1][1] and not (card[1] == 0 and any(v for _, v in exp))

    def legal_actions(self):
        if self.phase == "card":
            actions = []
            for slot, card in enumerate(self.hands[self.player]):
                if self.playable(card):
                    actions.append(2 * slot)
                actions.append(2 * slot + 1)
            return actions
        return [2 * HAND] + [2 * HAND + 1 + c for c in range(COLORS)
                             if self.piles[c] and c != self.last_discard]

    def apply(self, action):
        hand = self.hands[self.player]
        if self.phase == "card":
            card = hand.pop(action // 2)
            if action % 2 == 0:
                self.expeditions[self.player][card[0]].append(card)
                self.last_discard = None
            else:
                self.piles[card[0]].append(card)
                self.last_discard = card[0]
            self.phase = "draw"
            return False
        card = self.deck.pop() if action == 2 * HAND else self.piles[action - 2 * HAND - 1].pop()
        hand.append(card)
        hand.sort()
        self.phase, self.player = "card", 1 - self.player
        return not self.deck

    def score(self, player):
        total = 0
        for exp in self.expeditions[player].values():
            if exp:
                values = [v for _, v in exp]
                total += (sum(values) - 20) * (1 + values.count(0)) + (20 if len(exp) >= 8 else 0)
        return total

    def encode(self):
        me = self.player
        k = WAGERS + RANKS
        planes = [[0.0] * (COLORS * k) for _ in range(5)]

        def index(card):
            return card[0] * k + (WAGERS + card[1] - MIN_RANK if card[1] else 0)

        for card in self.hands[me]:
            planes[0][index(card)] = 1.0
        for c in range(COLORS):
            for card in self.expeditions[me][c]:
                planes[1][index(card)] = 1.0
            for card in self.expeditions[1 - me][c]:
                planes[2][index(card)] = 1.0
            for card in self.piles[c]:
                planes[3][index(card)] = 1.0
            if self.piles[c]:
                planes[4][index(self.piles[c][-1])] = 1.0
        features = [x for plane in planes for x in plane]
        for c in range(COLORS):
            features.append(sum(v for _, v in self.expeditions[me][c]) / 54.0)
            features.append(sum(v for _, v in self.expeditions[1 - me][c]) / 54.0)
        features.append(len(self.deck) / 44.0)
        legal = set(self.legal_actions())
        features.extend(1.0 if a in legal else 0.0 for a in range(2 * HAND + 1 + COLORS))
        return features


def plain_python(games, seconds):
    rng = random.Random(1)
    envs = [PlainLostCities(rng) for _ in range(games)]
    obs = [env.encode() for env in envs]
    decisions, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for i, env in enumerate(envs):
            if env.apply(env.legal_actions()[0]):
                env.reset()
            obs[i] = env.encode()
        decisions += games
    return decisions / (time.perf_counter() - start)


def vec_env(n, threads, seconds):
    env = lcfr.VecEnv(n, seed=1, threads=threads)
    _, legal, _, _ = env.reset()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, legal, _, _ = env.step(legal.argmax(axis=1).astype(np.int32))
        steps += 1
    return steps * n / (time.perf_counter() - start)


def cpp(build, binary, name, counter, min_time):
    out = subprocess.run([f"{build}/benchmarks/{binary}", f"--benchmark_filter={name}$",
                          f"--benchmark_min_time={min_time}", "--benchmark_format=json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["benchmarks"][0][counter]


def agent_batch(agent, batch, seconds):
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        agent.act_batch(batch)
        calls += 1
    return (time.perf_counter() - start) / calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()

    agent = lcfr.Agent(greedy=True)
    rng = np.random.default_rng(0)
    batch = []
    for g in range(256):  # positions from the agent's own games, a few decisions in
        s = lcfr.deal(seed=g)
        for _ in range(int(rng.integers(0, 60))):
            s.apply(agent.act(s))
        batch.append(s)

    rows = {k: [] for k in ("vec1", "vec2", "cpp1", "cpp2", "plain", "agent", "evaluator")}
    for r in range(args.rounds):
        rows["cpp1"].append(cpp(args.build, "bench_engine", "BM_StepLoop/1/real_time", "decisions_per_s", args.seconds))
        rows["vec1"].append(vec_env(4096, 1, args.seconds))
        rows["cpp2"].append(cpp(args.build, "bench_engine", "BM_StepLoop/2/real_time", "decisions_per_s", args.seconds))
        rows["vec2"].append(vec_env(4096, 2, args.seconds))
        rows["plain"].append(plain_python(256, args.seconds))
        rows["evaluator"].append(cpp(args.build, "bench_policy_boundary", "BM_CardsBatchedForward/256", "real_time", args.seconds) * 1e-9)
        rows["agent"].append(agent_batch(agent, batch, args.seconds))
        print(f"round {r + 1}/{args.rounds} done", flush=True)
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"VecEnv N=4096, 1 thread : {med['vec1'] / 1e6:.2f} M decisions/s; C++ loop {med['cpp1'] / 1e6:.2f} M: {med['vec1'] / med['cpp1']:.2f}x")
    print(f"VecEnv N=4096, 2 threads: {med['vec2'] / 1e6:.2f} M decisions/s; C++ loop {med['cpp2'] / 1e6:.2f} M: {med['vec2'] / med['cpp2']:.2f}x")
    print(f"plain Python engine, 256 games: {med['plain'] / 1e3:.1f} k decisions/s; VecEnv (2 threads) is {med['vec2'] / med['plain']:.0f}x faster")
    print(f"Agent.act_batch(256): {med['agent'] * 1e3:.3f} ms; C++ evaluator on 256 rows {med['evaluator'] * 1e3:.3f} ms: {med['agent'] / med['evaluator']:.2f}x")
    print(json.dumps({k: v for k, v in rows.items()}))


if __name__ == "__main__":
    main()
