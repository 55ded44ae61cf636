#!/usr/bin/env bash
# OpenSpiel's PyTorch Deep CFR beside `lcfr train`, single-threaded, on Kuhn or Leduc poker:
# exploitability (NashConv / 2, chips, exact on both sides) against CPU seconds, for several
# seeds, at matched settings or at each side's recommended settings; then the CPU seconds each
# needs to first reach fixed levels (benchmarks/README.md, "Deep CFR beside OpenSpiel").
#
#   benchmarks/peer/run_peer.sh [--game kuhn|leduc] [--settings matched|recommended]
#                               [--seeds 1,2,3] [--iterations N] [--out DIR]
#                               [--openspiel-stop-below LEVEL]
#
# --iterations sets both sides' at matched settings (default 100), OpenSpiel's alone at the
# recommended ones, where lcfr runs its config as it is.
# --openspiel-stop-below ends each OpenSpiel run at its first evaluation at or below LEVEL (its
# recommended Leduc settings cost about an hour a seed for 100 iterations; the CPU seconds to
# first reach LEVEL are known by then).
#
# Installs open_spiel 2.0.2 and dm-tree once (pip --target into $LCFR_CACHE/openspiel-2.0.2,
# without a torch of their own: OpenSpiel runs on the project's libtorch wheel). Needs a built
# build/apps/lcfr (scripts/run.sh builds it).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

game=leduc settings=matched seeds=1,2,3 iterations="" out="" stop_below=""
while (($#)); do
  case "$1" in
    --game) game="$2"; shift 2 ;;
    --settings) settings="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --iterations) iterations="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --openspiel-stop-below) stop_below="$2"; shift 2 ;;
    *) die "unknown option '$1' (see the header of $0)" ;;
  esac
done
[[ $game == kuhn || $game == leduc ]] || die "--game: '$game' is not kuhn or leduc"
[[ $settings == matched || $settings == recommended ]] ||
  die "--settings: '$settings' is not matched or recommended"
[[ $seeds =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--seeds: '$seeds' is not a comma-separated list of integers"
[[ -z $iterations || $iterations =~ ^[1-9][0-9]*$ ]] || die "--iterations: '$iterations' is not a positive integer"
[[ -z $stop_below || $stop_below =~ ^[0-9]*\.?[0-9]+$ ]] ||
  die "--openspiel-stop-below: '$stop_below' is not a non-negative number"
out=${out:-$LCFR_ROOT/benchmarks/results/peer-$game-$settings}
lcfr="$LCFR_ROOT/build/apps/lcfr"
[[ -x $lcfr ]] || die "no $lcfr: build it first (scripts/run.sh --help builds it)"

# OpenSpiel and its pure-Python dependencies, once per machine; torch is the project's.
bash "$LCFR_ROOT/scripts/setup.sh"
os_home="$LCFR_CACHE/openspiel-2.0.2"
if [[ ! -f $os_home/.complete ]]; then
  log "installing open_spiel 2.0.2 and dm-tree into $os_home (once per machine)"
  rm -rf "$os_home.partial"
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --no-cache-dir \
    --disable-pip-version-check --target "$os_home.partial" --no-deps \
    open_spiel==2.0.2 dm-tree wrapt absl-py attrs ml-collections numpy scipy PyYAML ||
    die "pip could not install open_spiel (error above)"
  mv "$os_home.partial" "$os_home"
  touch "$os_home/.complete"
fi
# The torch wheel scripts/setup.sh unpacked (a libtorch of your own has no Python package).
[[ -f $LCFR_TORCH_HOME/torch/__init__.py ]] ||
  die "no torch Python package in $LCFR_TORCH_HOME (scripts/setup.sh installs it)"
export PYTHONPATH="$os_home:$LCFR_TORCH_HOME"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

# The settings. matched: the same algorithm sizes on both sides (500 traversals per player per
# iteration, 64x3 networks, advantage networks retrained from scratch with 750 Adam steps of
# 2,048, the strategy network fitted from scratch with 5,000 steps of 2,048 every 10 iterations,
# learning rate 1e-3). recommended: OpenSpiel's example's recommended table (1,500 traversals,
# otherwise as matched) against the project's own config (configs/GAME.yaml, one thread).
osp_game=$([[ $game == kuhn ]] && echo kuhn_poker || echo leduc_poker)
if [[ $settings == matched ]]; then
  iterations=${iterations:-100}
  osp_args=(--traversals 500 --layers 64,64,64 --advantage-steps 750 --strategy-steps 5000
            --batch 2048 --strategy-every 10 --learning-rate 1e-3)
  lcfr_sets=(--set traversal.traversals=500 --set network.hidden_width=64
             --set network.hidden_layers=3 --set training.advantage_steps=750
             --set training.strategy_steps=5000 --set training.batch_size=2048
             --set training.strategy_every=10 --set evaluation.every=10
             --set training.learning_rate=0.001 --set training.warm_start=false
             --set run.iterations="$iterations")
else
  iterations=${iterations:-100}
  osp_args=(--traversals 1500 --layers 64,64,64 --advantage-steps 750 --strategy-steps 5000
            --batch 2048 --strategy-every 10 --learning-rate 1e-3)
  lcfr_sets=()
fi

mkdir -p "$out"
for seed in ${seeds//,/ }; do
  log "seed $seed: OpenSpiel Deep CFR ($osp_game, $iterations iterations)"
  python3 "$LCFR_ROOT/benchmarks/peer/openspiel_deep_cfr.py" --game "$osp_game" \
    --iterations "$iterations" --seed "$seed" "${osp_args[@]}" \
    ${stop_below:+--stop-below "$stop_below"} >"$out/openspiel-$seed.jsonl"
  log "seed $seed: lcfr train (configs/$game.yaml, $settings settings, one thread)"
  rm -rf "$out/lcfr-$seed"
  "$lcfr" train --config "$LCFR_ROOT/configs/$game.yaml" --run-dir "$out/lcfr-$seed" --quiet \
    --set run.seed="$seed" --set traversal.workers=1 \
    --set training.threads=1 "${lcfr_sets[@]}" >/dev/null
done
python3 "$LCFR_ROOT/benchmarks/peer/compare.py" "$out" --seeds "$seeds" | tee "$out/summary.txt"
