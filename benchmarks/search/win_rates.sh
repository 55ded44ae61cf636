#!/usr/bin/env bash
# Win rates with and without search, the same model, paired deals (docs/search.md):
#   benchmarks/search/win_rates.sh OUT_DIR [SEARCH ARGS ...]
# For every opponent (random, discard-only, the four heuristic presets) the model's current
# policy plays GAMES games (default 1000) without search and with `--search SEARCH ARGS`
# (default: --rollout-policy heuristic-balanced --rollouts 1000), then the searching player
# plays the plain one head to head (--opponent self). Each result is OUT_DIR/NAME-SEED.json (an
# existing one is kept, so a stopped batch resumes); then the table is printed, each row over
# every seed's games (the same deals without and with search). Each run also writes its games
# (OUT_DIR/NAME-SEED.csv, lcfr eval --games-out), and the gain's paired 95% interval comes from
# them (docs/search.md, "What the search adds, paired").
# SEEDS="S ..." plays GAMES games on each of those seeds (default 1), so a batch grows seed by
# seed; SELF_SEEDS and SELF_GAMES do the same for the head to head (default SEEDS and GAMES).
# MODEL=FILE plays another networks file; OPPONENTS="bot ..." plays only those (and SELF=0 skips
# the head to head), so a batch can give some opponents more games than others; WORKERS=N plays
# N games at once (default 2; with a cards network on the CPU the results do not depend on it,
# docs/search.md). Win rates do not depend on the machine's load (no time budget); the search's
# ms figures do.
#
# The fourteenth stop's table (benchmarks/README.md, "Every opponent on 1,000 deals"): the
# inferred search against the bots, then the shipped search head to head:
#   SEEDS="$(seq -s ' ' 101 110)" GAMES=100 SELF=0 benchmarks/search/win_rates.sh OUT \
#     --candidates 4 --rollouts 2000 --rollout-model models/lost-cities-student.pt --objective win \
#     --opponent-rollout-policy current,heuristic-cautious,heuristic-balanced,heuristic-aggressive
#   SELF_SEEDS="$(seq -s ' ' 3 12)" SELF_GAMES=110 OPPONENTS=" " benchmarks/search/win_rates.sh \
#     OUT2 --candidates 4 --rollouts 2000 --rollout-model models/lost-cities-student.pt
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
lcfr="${LCFR:-$root/build/apps/lcfr}"
model="${MODEL:-$root/models/lost-cities.pt}"
games="${GAMES:-1000}"
workers="${WORKERS:-2}"
read -r -a seeds <<< "${SEEDS:-1}"
read -r -a self_seeds <<< "${SELF_SEEDS:-${seeds[*]}}"
self_games="${SELF_GAMES:-$games}"
[[ $# -ge 1 ]] || { echo "usage: $0 OUT_DIR [SEARCH ARGS ...]" >&2; exit 2; }
[[ ${#seeds[@]} -gt 0 ]] || { echo "$0: SEEDS is empty" >&2; exit 2; }
out="$1"
shift
search=("$@")
[[ ${#search[@]} -gt 0 ]] || search=(--rollout-policy heuristic-balanced --rollouts 1000)
[[ -x "$lcfr" ]] || { echo "$0: $lcfr is not built (scripts/run.sh builds it)" >&2; exit 2; }
mkdir -p "$out"
echo "search: ${search[*]}" > "$out/search_args.txt"
run() {  # run NAME SEED GAMES ARGS...
  local name="$1" seed="$2" n="$3"
  shift 3
  if [[ ! -s "$out/$name-$seed.json" ]]; then
    echo "[search] $name, seed $seed, $n games" >&2
    "$lcfr" eval --model "$model" --policy current --games "$n" --seed "$seed" \
      --workers "$workers" --json --games-out "$out/$name-$seed.csv" "$@" \
      > "$out/$name-$seed.json.tmp"
    mv "$out/$name-$seed.json.tmp" "$out/$name-$seed.json"
  fi
}
read -r -a opponents <<< "${OPPONENTS:-random discard-only heuristic-cautious heuristic-balanced heuristic-aggressive heuristic-noisy}"
for seed in "${seeds[@]}"; do
  for bot in "${opponents[@]}"; do
    run "plain-$bot" "$seed" "$games" --opponent "$bot"
    run "search-$bot" "$seed" "$games" --opponent "$bot" --search "${search[@]}"
  done
done
if [[ "${SELF:-1}" != 0 ]]; then
  for seed in "${self_seeds[@]}"; do
    run "search-self" "$seed" "$self_games" --opponent self --search "${search[@]}"
  done
fi
# The table: every result in OUT_DIR, in this order, each row over the seeds that have both runs.
python3 - "$out" random discard-only heuristic-cautious heuristic-balanced heuristic-aggressive heuristic-noisy <<'PY'
import csv, glob, json, math, re, sys
out, bots = sys.argv[1], sys.argv[2:]
def runs(name):  # seed -> result
    found = {}
    for path in glob.glob(f"{out}/{name}-*.json"):
        m = re.fullmatch(re.escape(f"{out}/{name}-") + r"(\d+)\.json", path)
        if m:
            with open(path) as f:
                found[int(m.group(1))] = json.load(f)
    return found
def total(results):  # games, win rate, mean score difference, Wilson interval
    n = sum(r["games"] for r in results)
    p = sum(r["win_rate"] * r["games"] for r in results) / n
    d = sum(r["mean_score_diff"] * r["games"] for r in results) / n
    z = 1.96
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return n, p, d, f"{p:.3f} [{c - h:.3f}, {c + h:.3f}]"
def wins(name, seed):  # the per-game wins of a run's games file (--games-out), or None
    try:
        with open(f"{out}/{name}-{seed}.csv") as f:
            return [float(row["win"]) for row in csv.DictReader(f)]
    except OSError:
        return None
def paired(bot, seeds):  # the gain's paired 95% interval over the seeds' games, or ""
    d = []
    for s in seeds:
        a, b = wins(f"search-{bot}", s), wins(f"plain-{bot}", s)
        if a is None or b is None or len(a) != len(b):
            return ""  # a run from before --games-out: no pairing
        d += [x - y for x, y in zip(a, b)]
    m = sum(d) / len(d)
    sd = math.sqrt(sum((x - m) ** 2 for x in d) / max(1, len(d) - 1))
    h = 1.96 * sd / math.sqrt(len(d))
    return f" [{100 * (m - h):+.1f}, {100 * (m + h):+.1f}]"
print("| opponent | seeds | games | without search | with search | gain [paired 95%] | mean score diff (without / with) | left the policy | ms per decision (mean / max) |")
print("|---|---|---:|---|---|---:|---|---:|---|")
for bot in bots + ["self"]:
    searched = runs(f"search-{bot}")
    plain = runs(f"plain-{bot}") if bot != "self" else {s: None for s in searched}
    common = sorted(s for s in searched if s in plain)
    if not common:
        continue
    n, p, d, with_search = total([searched[s] for s in common])
    if bot == "self":
        p0, d0, without = 0.5, 0.0, "0.5 (itself)"
    else:
        _, p0, d0, without = total([plain[s] for s in common])
    x = [searched[s]["search"] for s in common]
    searched_decisions = sum(v["searched"] for v in x)
    left = sum(v["deviation_rate"] * v["searched"] for v in x) / max(1, searched_decisions)
    ms = sum(v["mean_ms"] * v["searched"] for v in x) / max(1, searched_decisions)
    seeds = f"{common[0]}" if len(common) == 1 else f"{common[0]}-{common[-1]} ({len(common)})"
    print(f"| {bot if bot != 'self' else 'the model without search'} | {seeds} | {n} | {without} | "
          f"{with_search} | {100 * (p - p0):+.1f}{paired(bot, common) if bot != 'self' else ''} | "
          f"{d0:+.1f} / {d:+.1f} | {100 * left:.0f}% | "
          f"{ms:.0f} / {max(v['max_ms'] for v in x):.0f} |")
print(f"\nPaired deals, seats alternating; "
      f"{open(out + '/search_args.txt').read().strip()}")
PY
