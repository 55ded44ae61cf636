"""OpenSpiel's own PyTorch Deep CFR (open_spiel.python.pytorch.deep_cfr), driven iteration by
iteration so that its exploitability can be measured against CPU seconds as `lcfr train`'s is.

The solver's `solve()` loop, unrolled: each iteration traverses for each player and fits its
advantage network (from scratch, as OpenSpiel does by default); every `--strategy-every`
iterations (and after the last) the strategy network is fitted from scratch on the strategy
memory and the exact exploitability (NashConv / 2, chips) of its policy is computed. CPU seconds
are the process's (time.process_time), with the evaluation's own time left out, as lcfr's
`cpu_seconds` minus its evaluation time. One JSON line per evaluation on stdout.
Run by benchmarks/peer/run_peer.sh, single-threaded.
"""

import argparse
import json
import sys
import time

import torch
import pyspiel
from open_spiel.python import policy
from open_spiel.python.algorithms import exploitability
from open_spiel.python.pytorch import deep_cfr


def main():
  p = argparse.ArgumentParser(description=__doc__)
  p.add_argument("--game", required=True, help="kuhn_poker or leduc_poker")
  p.add_argument("--iterations", type=int, required=True)
  p.add_argument("--traversals", type=int, required=True, help="per player per iteration")
  p.add_argument("--layers", required=True, help="hidden widths, e.g. 64,64,64")
  p.add_argument("--advantage-steps", type=int, required=True)
  p.add_argument("--strategy-steps", type=int, required=True)
  p.add_argument("--batch", type=int, required=True)
  p.add_argument("--strategy-every", type=int, required=True)
  p.add_argument("--learning-rate", type=float, required=True)
  p.add_argument("--memory", type=int, default=1_000_000)
  p.add_argument("--seed", type=int, required=True)
  p.add_argument("--stop-below", type=float, default=None,
                 help="end the run at the first evaluation at or below this exploitability")
  a = p.parse_args()

  torch.set_num_threads(1)
  torch.manual_seed(a.seed)
  import numpy as np
  np.random.seed(a.seed)
  game = pyspiel.load_game(a.game)
  layers = tuple(int(w) for w in a.layers.split(","))
  solver = deep_cfr.DeepCFRSolver(
      game,
      policy_network_layers=layers,
      advantage_network_layers=layers,
      num_iterations=a.iterations,
      num_traversals=a.traversals,
      learning_rate=a.learning_rate,
      batch_size_advantage=a.batch,
      batch_size_strategy=a.batch,
      memory_capacity=a.memory,
      policy_network_train_steps=a.strategy_steps,
      advantage_network_train_steps=a.advantage_steps,
      reinitialize_advantage_networks=True,
      seed=a.seed,
  )
  root = game.new_initial_state()
  excluded = 0.0  # CPU seconds of the evaluations
  for it in range(1, a.iterations + 1):
    for player in range(game.num_players()):
      for _ in range(a.traversals):
        solver._traverse_game_tree(root, player)  # pylint: disable=protected-access
      solver._reinitialize_advantage_network(player)  # pylint: disable=protected-access
      solver._learn_advantage_network(player)  # pylint: disable=protected-access
    solver._iteration += 1  # pylint: disable=protected-access
    if it % a.strategy_every == 0 or it == a.iterations:
      solver._reinitialize_policy_network()  # pylint: disable=protected-access
      solver._learn_strategy_network()  # pylint: disable=protected-access
      fitted = time.process_time()
      average = policy.tabular_policy_from_callable(game, solver.action_probabilities)
      value = exploitability.exploitability(game, average)
      excluded += time.process_time() - fitted
      print(json.dumps({"iteration": it, "exploitability": value,
                        "cpu_seconds": time.process_time() - excluded}), flush=True)
      if a.stop_below is not None and value <= a.stop_below:
        break


if __name__ == "__main__":
  sys.exit(main())
