"""Exploitability against CPU seconds for OpenSpiel's Deep CFR and `lcfr train` (run_peer.sh's
output folder): each seed's curve on both sides, the CPU seconds each first needs to reach fixed
levels, and their ratio (OpenSpiel / lcfr: how many times less CPU lcfr needs)."""

import argparse
import json
import os
import statistics
import sys


def openspiel_curve(path):
  return [(d["iteration"], d["cpu_seconds"], d["exploitability"])
          for d in map(json.loads, filter(str.strip, open(path)))]


def lcfr_curve(path):
  """(iteration, CPU seconds without the evaluations, exploitability) per evaluation."""
  curve, evaluation = [], 0.0
  for d in map(json.loads, filter(str.strip, open(path))):
    evaluation += d["time"]["evaluation"]
    if "exploitability" in d:
      curve.append((d["iteration"], d["time"]["process_cpu"] - evaluation, d["exploitability"]))
  return curve


def first_reach(curve, level):
  return next((cpu for _, cpu, e in curve if e <= level), None)


def main():
  p = argparse.ArgumentParser(description=__doc__)
  p.add_argument("out")
  p.add_argument("--seeds", required=True)
  a = p.parse_args()
  seeds = [int(s) for s in a.seeds.split(",")]
  curves = {"openspiel": {}, "lcfr": {}}
  for s in seeds:
    curves["openspiel"][s] = openspiel_curve(os.path.join(a.out, f"openspiel-{s}.jsonl"))
    curves["lcfr"][s] = lcfr_curve(os.path.join(a.out, f"lcfr-{s}", "metrics.jsonl"))
  worst = max(e for side in curves.values() for c in side.values() for _, _, e in c[:1])
  levels = [l for l in (1.0, 0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01) if l < worst]
  for side, by_seed in curves.items():
    for s, curve in by_seed.items():
      print(f"{side} seed {s}: " + ", ".join(
          f"it {it} {cpu:.0f}s {e:.3f}" for it, cpu, e in curve))
  print()
  print("CPU seconds to first reach each exploitability (median over seeds; '-' = never)")
  print(f"{'level':>7} | {'openspiel':>22} | {'lcfr':>22} | ratio")
  for level in levels:
    cells, medians = [], []
    for side in ("openspiel", "lcfr"):
      times = [first_reach(c, level) for c in curves[side].values()]
      reached = [t for t in times if t is not None]
      median = statistics.median(reached) if len(reached) == len(times) else None
      medians.append(median)
      cells.append(" ".join("-" if t is None else f"{t:.0f}" for t in times) +
                   (f" (med {median:.0f})" if median is not None else ""))
    ratio = (f"{medians[0] / medians[1]:.1f}x" if None not in medians and medians[1] > 0
             else "-")
    print(f"{level:>7} | {cells[0]:>22} | {cells[1]:>22} | {ratio}")
  print()
  for side, by_seed in curves.items():
    for s, curve in by_seed.items():
      best = min(curve, key=lambda x: x[2])
      last = curve[-1]
      print(f"{side} seed {s}: final {last[2]:.3f} (it {last[0]}, {last[1]:.0f} CPU s), "
            f"best {best[2]:.3f} (it {best[0]}, {best[1]:.0f} CPU s)")


if __name__ == "__main__":
  sys.exit(main())
