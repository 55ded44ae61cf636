#!/usr/bin/env bash
# Search at play time (docs/search.md): speed and latency on this machine.
#   benchmarks/search/bench_search.sh [MODEL]     (default: models/lost-cities.pt)
# 1. Rollouts per second and rows per forward against the batcher's width: `lcfr eval --search`,
#    one game thread, the model's own rollouts (200 per decision; --rollout-model names the model
#    itself over its card's student), 2 games against heuristic-balanced.
# 2. Decision latency of `lcfr agent --search` at its default budget (the model card's: for the
#    shipped model 2,000 rollouts of its student; 2 workers) on the opening decision (the longest
#    rollouts), 5 decisions; then with 500 of the model's own rollouts and with heuristic rollouts.
# 3. With opponent inference from a line's moves.
# Run it alone on the machine: the times are the result.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
lcfr="${LCFR:-$root/build/apps/lcfr}"
model="${1:-$root/models/lost-cities.pt}"
[[ -x "$lcfr" ]] || { echo "$0: $lcfr is not built (scripts/run.sh builds it)" >&2; exit 2; }
echo "| width | rollouts/s (one thread) | rows per forward | mean ms per decision |"
echo "|---:|---:|---:|---:|"
for width in ${WIDTHS:-1 8 32 128 256}; do
  "$lcfr" eval --model "$model" --policy current --search --rollout-model "$model" --rollouts 200 \
    --search-width "$width" \
    --workers 1 --games 2 --opponent heuristic-balanced --json 2>/dev/null |
    python3 -c "import json,sys; s=json.load(sys.stdin)['search']; print(f\"| $width | {s['rollouts_per_s']:.0f} | {s['rows_per_forward']:.1f} | {s['mean_ms']:.0f} |\")"
done
echo
line='{"decision":"card","hand":["Y2","Y3","B4","B5","W6","G7","R8","R9"],"deck_size":44}'
for rollout in "" model heuristic-balanced; do
  args=()
  if [[ "$rollout" == model ]]; then
    args+=(--rollout-model "$model" --rollouts 500)
  elif [[ -n "$rollout" ]]; then
    args+=(--rollout-policy "$rollout")
  fi
  start=$(date +%s.%N)
  for _ in 1 2 3 4 5; do echo "$line"; done | "$lcfr" agent --model "$model" --search "${args[@]}" > /dev/null
  end=$(date +%s.%N)
  python3 -c "print(f'agent --search ${args[*]:-}: {($end - $start) / 5 * 1000:.0f} ms per opening decision (5 decisions, model load included)')"
done
# 3. The same with opponent inference over four policies and the win objective, on the second
#    player's first decision, the opponent's first turn in the line's "moves" (the shipped
#    default's rollouts; the inference reads the moves: docs/agent_protocol.md).
moves_line='{"decision":"card","hand":["Y3","B4","B5","W6","G7","R8","R9","R10"],"discards":{"Y":["Y2"]},"deck_size":43,"moves":[{"by":"opponent","discard":"Y2"},{"by":"opponent","draw":"deck"}]}'
args=(--opponent-rollout-policy current,heuristic-cautious,heuristic-balanced,heuristic-aggressive --objective win)
start=$(date +%s.%N)
for _ in 1 2 3 4 5; do echo "$moves_line"; done | "$lcfr" agent --model "$model" --search "${args[@]}" > /dev/null
end=$(date +%s.%N)
python3 -c "print(f'agent --search ${args[*]} (a line with moves): {($end - $start) / 5 * 1000:.0f} ms per decision (5 decisions, model load included)')"
