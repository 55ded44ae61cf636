#!/usr/bin/env bash
# Learning curves of the issue-12 design steps, side by side at the same budget: the default
# configuration (12 iterations) with one change per variant, 1,000-game evaluations every 2
# iterations for every evaluation policy (the strategy network trained every 2 for the average), the same seed (so the same deals at each iteration).
#   benchmarks/curves/run_curves.sh OUT_DIR [VARIANT ...]
# ITERATIONS=N (default 12) trains each new run for N iterations instead; POLICIES="[current]"
# evaluates only the policies named (default: all four).
# Variants: cards-value (the default), mlp-value, cards-escher-balanced, cards-escher-uniform
# (all four when none is named). Each run goes to OUT_DIR/VARIANT (an existing one is kept, so a
# stopped batch resumes where it stopped); then the tables are printed with curve_table.py.
# Run it alone on the machine: the wall times are part of the result.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
lcfr="${LCFR:-$root/build/apps/lcfr}"
if [[ $# -lt 1 ]]; then
  echo "usage: $0 OUT_DIR [cards-value|mlp-value|cards-escher-balanced|cards-escher-uniform ...]" >&2
  exit 2
fi
out="$1"
shift
variants=("$@")
[[ ${#variants[@]} -gt 0 ]] || variants=(cards-value mlp-value cards-escher-balanced cards-escher-uniform)
[[ -x "$lcfr" ]] || { echo "$0: $lcfr is not built (scripts/run.sh builds it)" >&2; exit 2; }
iterations="${ITERATIONS:-12}"
common=(--set "run.iterations=$iterations" --set evaluation.every=2 --set training.strategy_every=2 --set evaluation.games=1000
        --set "evaluation.opponents=[random, discard-only, heuristic-cautious]"
        --set "evaluation.policies=${POLICIES:-[current, average, average-greedy, current-greedy]}")
mkdir -p "$out"
args=()
for v in "${variants[@]}"; do
  case "$v" in
    cards-value) extra=() ;;
    mlp-value) extra=(--set network.architecture=mlp) ;;
    cards-escher-balanced) extra=(--set traversal.scheme=escher --set traversal.sampling_policy=balanced) ;;
    cards-escher-uniform) extra=(--set traversal.scheme=escher --set traversal.sampling_policy=uniform) ;;
    *) echo "$0: unknown variant '$v'" >&2; exit 2 ;;
  esac
  if [[ -f "$out/$v/summary.json" ]]; then
    echo "[curves] $v: done before, kept" >&2
  else
    rm -rf "$out/$v"
    echo "[curves] $v: training" >&2
    start=$(date +%s)
    "$lcfr" train --quiet --run-dir "$out/$v" "${common[@]}" "${extra[@]}" > /dev/null
    echo "[curves] $v: $(( $(date +%s) - start )) s" | tee -a "$out/times.txt" >&2
  fi
  args+=("$v=$out/$v")
done
for policy in $(echo "${POLICIES:-current current-greedy average average-greedy}" | tr -d '[],'); do
  echo
  echo "policy: $policy"
  echo
  python3 "$here/curve_table.py" --policy "$policy" --stats "${args[@]}"
done
