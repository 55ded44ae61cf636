#!/usr/bin/env bash
# The golden of play: the shipped search's decisions and the shipped model's games, on fixed
# seeds at small budgets, against files checked in under tests/golden/search/. A change that
# alters what a kept option plays shows here as a diff. LCFR_UPDATE_GOLDEN=1 rewrites the files
# (then review the diff and say in the commit why play changed).
#
# The networks run on the CPU's cards kernel (inference/cards_kernel.h), chosen by instruction
# set at run time: the files were recorded on an x86-64-v4 (AVX-512) CPU, which both kinds of
# machine this project runs on have; another set may round differently.
#
#   search_golden.sh PATH_TO_LCFR SOURCE_DIR
set -uo pipefail
lcfr="$1" src="$2"
golden="$src/tests/golden/search"
M="$src/models/lost-cities.pt"
S="$src/models/lost-cities-student.pt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passes=0 failures=0

# The figures of eval's JSON that do not depend on time (the rest is timing).
figures() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = ["games", "win_rate", "ci_low", "ci_high", "mean_score_diff", "capped", "fallback_rate"]
for k in keys:
    if k in d:
        print(f"{k}={d[k]!r}")
s = d.get("search")
if s is not None:
    for k in ["decisions", "searched", "deviation_rate", "card_deviation_rate",
              "draw_deviation_rate", "rollouts_per_decision", "policy_calls_per_rollout",
              "cut_share", "belief_share", "belief_ess", "win_objective_share"]:
        if k in s:
            print(f"search.{k}={s[k]!r}")
    inferred = s.get("opponent_inference") or {}
    for name, p in sorted((inferred.get("posterior") or {}).items()):
        print(f"search.posterior.{name}={p!r}")
PY
}

# check NAME ARGS...: eval with ARGS, its games file and figures against golden/NAME.txt.
check_eval() {
  local name="$1"
  shift
  if ! "$lcfr" eval "$@" --json --games-out "$tmp/$name.csv" >"$tmp/$name.json" 2>"$tmp/err"; then
    failures=$((failures + 1))
    echo "FAIL: $name: eval failed: $(tail -3 "$tmp/err")"
    return
  fi
  { echo "# lcfr eval $*"; figures "$tmp/$name.json"; cat "$tmp/$name.csv"; } |
    sed "s|$src/|SRC/|g" >"$tmp/$name.txt"
  compare "$name"
}

compare() {
  local name="$1"
  if [[ ${LCFR_UPDATE_GOLDEN:-0} == 1 ]]; then
    cp "$tmp/$name.txt" "$golden/$name.txt"
    echo "updated $golden/$name.txt"
  fi
  if cmp -s "$tmp/$name.txt" "$golden/$name.txt"; then
    passes=$((passes + 1))
  else
    failures=$((failures + 1))
    echo "FAIL: $name differs from its golden:"
    diff "$golden/$name.txt" "$tmp/$name.txt" | head -20
  fi
}

# The served agent: 300 positions with their moves (tests/golden/search/positions.jsonl, from
# games between two heuristics), one search each, at the shipped defaults (the student's
# rollouts) but a small budget; then with opponent inference from the moves.
check_agent() {
  local name="$1"
  shift
  "$lcfr" agent "$@" <"$golden/positions.jsonl" >"$tmp/$name.out" 2>"$tmp/err"
  local code=$?
  { echo "# lcfr agent $* (exit $code)"; cat "$tmp/$name.out"; } >"$tmp/$name.txt"
  compare "$name"
}

check_agent agent_search --search --rollouts 60 --seed 5
check_agent agent_search_inference --search --rollouts 60 --seed 5 \
  --opponent-rollout-policy current,heuristic-cautious,heuristic-balanced --opponent-worlds 20
check_eval eval_current --model "$M" --policy current --opponent heuristic-balanced --games 200 --seed 3
check_eval eval_average_greedy --model "$M" --policy average --greedy --opponent heuristic-cautious \
  --games 100 --seed 4
check_eval eval_search --model "$M" --policy current --search --rollout-model "$S" --rollouts 40 \
  --opponent heuristic-balanced --games 6 --seed 11 --workers 2
check_eval eval_search_inference_win --model "$M" --policy current --search --rollout-model "$S" \
  --rollouts 40 --opponent heuristic-cautious --opponent-rollout-policy current,heuristic-cautious \
  --objective win --games 4 --seed 12
check_eval eval_search_belief --model "$M" --policy current --search --rollout-model "$S" \
  --rollouts 30 --belief 16 --opponent heuristic-cautious --games 2 --seed 13
check_eval eval_search_racing --model "$M" --policy current --search --rollout-model "$S" \
  --rollouts 60 --allocation racing --opponent heuristic-cautious --games 2 --seed 14
check_eval eval_search_depth --model "$M" --policy current --search --rollout-model "$S" \
  --rollouts 30 --rollout-depth 8 --opponent heuristic-cautious --games 2 --seed 15
check_eval eval_search_bot --bot heuristic-balanced --search --rollouts 40 \
  --opponent heuristic-cautious --games 4 --seed 16
check_eval eval_search_oracle --model "$M" --policy current --search --rollout-model "$S" \
  --rollouts 30 --oracle-hand --opponent heuristic-cautious --games 2 --seed 17

echo "$passes passed, $failures failed"
[[ $failures -eq 0 ]]
