#!/usr/bin/env bash
# The main job (README's first command). Installs what is missing, builds, and runs `lcfr`.
#
#   scripts/run.sh              the default job: a Deep CFR training run on the embedded
#                               default configuration (configs/default.yaml: Lost Cities, CPU,
#                               a few minutes on 2 cores) into runs/, then its plots and an
#                               evaluation of the final checkpoint's current policy against three bots
#   scripts/run.sh ARGS...      runs `lcfr ARGS...` (e.g. scripts/run.sh match random heuristic)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

bash "$LCFR_ROOT/scripts/setup.sh"
configure_and_build "$LCFR_ROOT/build" -DCMAKE_PREFIX_PATH="$(torch_prefix_path)"
lcfr="$LCFR_ROOT/build/apps/lcfr"

if (($#)); then
  exec "$lcfr" "$@"
fi

cd "$LCFR_ROOT"
"$lcfr" info
run_dir=$("$lcfr" train)
log "plots:"
"$lcfr" plot "$run_dir"
log "final checkpoint against the bots (the current policy, what lcfr agent and play play):"
for opponent in random discard-only heuristic-cautious; do
  "$lcfr" eval --checkpoint "$run_dir" --opponent "$opponent" --games 1000 --policy current
done
log "run directory: $run_dir (metrics.jsonl, config.yaml, checkpoints/, plots/)"
