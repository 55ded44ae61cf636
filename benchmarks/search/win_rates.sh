#!/usr/bin/env bash
# Win rates with and without search, the same model, paired deals (docs/search.md):
#   benchmarks/search/win_rates.sh OUT_DIR [SEARCH ARGS ...]
# For every opponent (random, discard-only, the four heuristic presets) the model's current
# policy plays GAMES games (default 1000) without search and with `--search SEARCH ARGS`
# (default: --rollout-policy heuristic-balanced --rollouts 1000), then the searching player
# plays the plain one head to head (--opponent self). Each result is OUT_DIR/NAME.json (an
# existing one is kept, so a stopped batch resumes); then the table is printed.
# MODEL=FILE plays another networks file; OPPONENTS="bot ..." plays only those (and SELF=0 skips
# the head to head), so a batch can give some opponents more games than others. Win rates do not depend on the machine's load (no
# time budget); the search's ms figures do.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
lcfr="${LCFR:-$root/build/apps/lcfr}"
model="${MODEL:-$root/models/lost-cities.pt}"
games="${GAMES:-1000}"
[[ $# -ge 1 ]] || { echo "usage: $0 OUT_DIR [SEARCH ARGS ...]" >&2; exit 2; }
out="$1"
shift
search=("$@")
[[ ${#search[@]} -gt 0 ]] || search=(--rollout-policy heuristic-balanced --rollouts 1000)
[[ -x "$lcfr" ]] || { echo "$0: $lcfr is not built (scripts/run.sh builds it)" >&2; exit 2; }
mkdir -p "$out"
echo "search: ${search[*]}" > "$out/search_args.txt"
run() {  # run NAME ARGS...
  local name="$1"
  shift
  if [[ ! -s "$out/$name.json" ]]; then
    echo "[search] $name" >&2
    "$lcfr" eval --model "$model" --policy current --games "$games" --json "$@" > "$out/$name.json.tmp"
    mv "$out/$name.json.tmp" "$out/$name.json"
  fi
}
read -r -a opponents <<< "${OPPONENTS:-random discard-only heuristic-cautious heuristic-balanced heuristic-aggressive heuristic-noisy}"
for bot in "${opponents[@]}"; do
  run "plain-$bot" --opponent "$bot"
  run "search-$bot" --opponent "$bot" --search "${search[@]}"
done
[[ "${SELF:-1}" == 0 ]] || run "search-self" --opponent self --search "${search[@]}"
# The table: every result in OUT_DIR, in this order.
python3 - "$out" random discard-only heuristic-cautious heuristic-balanced heuristic-aggressive heuristic-noisy <<'PY'
import json, os, sys
out, bots = sys.argv[1], sys.argv[2:]
def load(name):
    with open(f"{out}/{name}.json") as f:
        return json.load(f)
def rate(j):
    return f"{j['win_rate']:.3f} [{j['ci_low']:.3f}, {j['ci_high']:.3f}]"
print("| opponent | games | without search | with search | gain | mean score diff (without / with) | left the policy | ms per decision (mean / max) |")
print("|---|---:|---|---|---:|---|---:|---|")
for bot in bots + ["self"]:
    if not os.path.exists(f"{out}/search-{bot}.json"):
        continue
    s = load(f"search-{bot}")
    x = s["search"]
    if bot == "self":
        p = {"win_rate": 0.5, "mean_score_diff": 0.0}
        plain = "0.5 (itself)"
    else:
        p = load(f"plain-{bot}")
        plain = rate(p)
    print(f"| {bot if bot != 'self' else 'the model without search'} | {s['games']} | {plain} | {rate(s)} | "
          f"{100 * (s['win_rate'] - p['win_rate']):+.1f} | {p['mean_score_diff']:+.1f} / "
          f"{s['mean_score_diff']:+.1f} | {100 * x['deviation_rate']:.0f}% | "
          f"{x['mean_ms']:.0f} / {x['max_ms']:.0f} |")
print(f"\nPaired deals, seats alternating; "
      f"{open(out + '/search_args.txt').read().strip()}")
PY
