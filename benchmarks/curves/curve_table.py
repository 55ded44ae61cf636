#!/usr/bin/env python3
"""Learning curves of Lost Cities training runs as a Markdown table.

Usage: curve_table.py [--policy P] [--stats] NAME=RUN_DIR [NAME=RUN_DIR ...]

For every evaluation of every run (its metrics.jsonl), one row: the iteration, the run's wall
time up to the end of that iteration (the sum of its phase times: traversal, training,
evaluation, checkpoint), and the win rate with its 95% Wilson interval against each opponent,
for the evaluation policy P (default: the run's first, the eval.<bot> keys). --stats adds the
expedition statistics and the fallback rate against the first opponent. Runs with the same seed
play the same deals at the same iteration (paired).
"""
import json
import sys


def load(run_dir):
    path = run_dir.rstrip("/") + "/metrics.jsonl"
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except OSError as e:
        sys.exit(f"curve_table.py: {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        sys.exit(f"curve_table.py: {path}: not JSON lines ({e})")


def main(argv):
    policy = None
    stats = False
    runs = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--policy":
            if not args:
                sys.exit("curve_table.py: --policy needs a value")
            policy = args.pop(0)
        elif a == "--stats":
            stats = True
        elif "=" in a:
            name, run_dir = a.split("=", 1)
            runs.append((name, run_dir))
        else:
            sys.exit(f"curve_table.py: '{a}' is not NAME=RUN_DIR (see --help in the source)")
    if not runs:
        sys.exit(__doc__)
    rows = []
    opponents = []
    for name, run_dir in runs:
        wall = 0.0
        for line in load(run_dir):
            wall += sum(line.get("time", {}).values())
            ev = line.get("eval")
            if not ev:
                continue
            table = ev.get(policy) if policy else {k: v for k, v in ev.items() if "win_rate" in v}
            if table is None:
                sys.exit(f"curve_table.py: {run_dir}: iteration {line['iteration']} has no "
                         f"evaluation of policy '{policy}' (it has: "
                         f"{', '.join(k for k, v in ev.items() if 'win_rate' not in v)})")
            for bot in table:
                if bot not in opponents:
                    opponents.append(bot)
            rows.append((name, line["iteration"], wall, table))
    head = ["run", "iteration", "wall time"] + opponents
    if stats:
        head += ["opened", "per colour", "positive", "wagers < cost", "fallback"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---", "---:", "---:"] + ["---"] * (len(head) - 3)) + "|")
    for name, iteration, wall, table in rows:
        cells = [name, str(iteration), f"{wall / 60:.1f} min"]
        for bot in opponents:
            r = table.get(bot)
            cells.append(f"{r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] "
                         f"({r['games']})" if r else "")
        if stats:
            r = table[opponents[0]]
            cells += [f"{r.get('colors_opened', 0):.2f}", f"{r.get('score_per_color', 0):+.1f}",
                      f"{r.get('positive_share', 0):.2f}", f"{r.get('wagers_below_cost', 0):.2f}",
                      f"{r.get('fallback_rate', 0):.2f}"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
