#!/usr/bin/env bash
# The main job (README's first command). Installs what is missing, builds, and runs `lcfr`.
#
#   scripts/run.sh              the default job: the engine's demo matches (until the trainer
#                               lands, this is a bot tournament on the classic rules)
#   scripts/run.sh ARGS...      runs `lcfr ARGS...` (e.g. scripts/run.sh match random heuristic)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

bash "$LCFR_ROOT/scripts/setup.sh"
configure_and_build "$LCFR_ROOT/build" -DCMAKE_PREFIX_PATH="$(torch_prefix_path)"
lcfr="$LCFR_ROOT/build/apps/lcfr"

if (($#)); then
  exec "$lcfr" "$@"
fi

"$lcfr" info
for pair in "heuristic-balanced random" "heuristic-balanced discard-only" \
            "heuristic-cautious discard-only" "heuristic-aggressive heuristic-cautious"; do
  echo
  # shellcheck disable=SC2086
  "$lcfr" match $pair --games 2000 --seed 1
done
