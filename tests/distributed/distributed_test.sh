#!/usr/bin/env bash
# Several training processes (docs/distributed.md), with Gloo on loopback: the samples of 2 and
# 3 ranks equal a single process's, the ranks keep identical weights, checkpoints hold every
# shard and resume reproduces the uninterrupted run, a rank that dies or hangs stops the run
# with a clear error and an intact checkpoint, and bad launches are refused.
# Usage: distributed_test.sh PATH_TO_LCFR SOURCE_DIR
set -uo pipefail
lcfr="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
passes=0
pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() {  # check NAME -- CMD...: passes when CMD succeeds
  local name="$1"
  shift 2
  if "$@"; then pass; else fail "$name"; fi
}
# json FILE LINE EXPR: evaluates a Python expression on line LINE (1-based) of a JSON-lines file.
json() {
  python3 -c "import json,sys; d=[json.loads(l) for l in open(sys.argv[1]) if l.strip()][int(sys.argv[2])-1]; print($3)" "$1" "$2"
}
# same_as NAME FILE REFERENCE ITERATIONS: one check per iteration and key of what a resumed run
# must reproduce (losses, samples, memory, distributed, evaluation), read in one Python call.
same_as() {
  local name="$1" file="$2" reference="$3" iterations="$4" verdict
  while read -r verdict; do
    if [[ $verdict == ok* ]]; then pass; else fail "$name: $verdict"; fi
  done < <(python3 - "$file" "$reference" "$iterations" <<'PY'
import json, sys
def lines(path):
    return [json.loads(l) for l in open(path) if l.strip()]
got, want = lines(sys.argv[1]), lines(sys.argv[2])
for i in map(int, sys.argv[3].split()):
    for key in ("advantage_loss", "samples", "memory", "distributed", "eval"):
        a = got[i - 1].get(key) if i <= len(got) else "<missing line>"
        b = want[i - 1].get(key) if i <= len(want) else "<missing line>"
        print(f"ok {i} {key}" if a == b else f"iteration {i} {key}: {a} != {b} (uninterrupted)")
PY
  )
}
unset WORLD_SIZE RANK LOCAL_RANK MASTER_ADDR MASTER_PORT LCFR_TEST_FAULT

smoke=(--config "$src/configs/smoke.yaml" --set traversal.workers=1 --quiet)
run() {  # run NAME EXPECTED_EXIT -- lcfr train ARGS...
  local name="$1" want="$2"
  shift 3
  local start=$SECONDS
  "$lcfr" train "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
  local got=$?
  elapsed=$((SECONDS - start))
  if [[ $got -eq $want ]]; then pass; else fail "$name: exit $got, expected $want"; cat "$tmp/$name.err"; fi
}

# 1. The smoke config on 2 and 3 ranks of one worker each, against one process with 2 and 3
#    workers (the same traversals in the same batches: a CPU GEMM's rows depend on the batch's
#    size, so bit-equal samples need equal batches). Iteration 1's first traversal phase sees
#    the same (initial) networks, so its samples' digest must be equal. Rank 0 prints the run
#    directory once; every rank's shards are in the checkpoint; the weights checksum is logged.
for n in 2 3; do
  run "one$n" 0 -- "${smoke[@]}" --set traversal.workers="$n" --run-dir "$tmp/one$n"
  run "smoke$n" 0 -- "${smoke[@]}" --nproc "$n" --run-dir "$tmp/smoke$n"
  check "smoke$n: one line on stdout" -- test "$(wc -l <"$tmp/smoke$n.out")" -eq 1
  check "smoke$n: world_size in metrics" -- \
    test "$(json "$tmp/smoke$n/metrics.jsonl" 1 "d['distributed']['world_size']")" = "$n"
  check "smoke$n: same samples as one process (digest, iteration 1, player 0)" -- test \
    "$(json "$tmp/smoke$n/metrics.jsonl" 1 "d['samples']['digest'][0]")" = \
    "$(json "$tmp/one$n/metrics.jsonl" 1 "d['samples']['digest'][0]")"
  check "smoke$n: four iterations" -- test "$(wc -l <"$tmp/smoke$n/metrics.jsonl")" -eq 4
  for ((r = 0; r < n; ++r)); do
    for mem in advantage0 advantage1 strategy value; do
      check "smoke$n: shard $mem.rank$r.s0.mem" -- \
        test -s "$tmp/smoke$n/checkpoints/iter_000004/$mem.rank$r.s0.mem"
    done
  done
  # Each rank is offered more than its share (2,000 / n) of player 0's advantage samples by
  # iteration 4 on 2 ranks, so its shard is full: together exactly the configured 2,000. Full-size
  # shards would hold more. On 3 ranks some shards may not be full yet.
  op=$([[ $n == 2 ]] && echo "==" || echo "<=")
  check "smoke$n: the shards together hold the configured capacity" -- \
    test "$(json "$tmp/smoke$n/metrics.jsonl" 4 "d['memory']['advantage'][0] $op 2000")" = True
done
# The digest has power: a different seed gives a different one.
run seed2 0 -- "${smoke[@]}" --set traversal.workers=2 --set run.seed=8 --set run.iterations=1 \
  --run-dir "$tmp/seed2"
check "digest differs for another seed" -- test \
  "$(json "$tmp/seed2/metrics.jsonl" 1 "d['samples']['digest'][0]")" != \
  "$(json "$tmp/one2/metrics.jsonl" 1 "d['samples']['digest'][0]")"

# 2. Kuhn on 3 ranks: same first samples as one process, and the exact exploitability logged.
kuhn=(--config "$src/configs/kuhn.yaml" --set run.iterations=4 --set training.strategy_every=2
      --set evaluation.every=2 --set traversal.workers=1 --quiet)
run kuhn1 0 -- "${kuhn[@]}" --set traversal.workers=3 --run-dir "$tmp/kuhn1"
run kuhn3 0 -- "${kuhn[@]}" --nproc 3 --run-dir "$tmp/kuhn3"
check "kuhn3: same samples as one process" -- test \
  "$(json "$tmp/kuhn3/metrics.jsonl" 1 "d['samples']['digest'][0]")" = \
  "$(json "$tmp/kuhn1/metrics.jsonl" 1 "d['samples']['digest'][0]")"
check "kuhn3: exploitability logged" -- \
  test "$(json "$tmp/kuhn3/metrics.jsonl" 4 "'exploitability' in d")" = True

# 3. A rank that dies at iteration 3: the run stops with the rank named, LATEST is the intact
#    checkpoint of iteration 2, and resuming on 2 ranks reproduces the uninterrupted run.
LCFR_TEST_FAULT=exit:1:3 run died 3 -- "${smoke[@]}" --nproc 2 --run-dir "$tmp/died"
grep -q "rank 1 of 2 exited with status 3" "$tmp/died.err" && pass || { fail "died: launcher names the rank"; cat "$tmp/died.err"; }
grep -q "rank 0 of 2: .* failed" "$tmp/died.err" && pass || { fail "died: rank 0 reports the failed collective"; cat "$tmp/died.err"; }
check "died: LATEST is iteration 2" -- test "$(cat "$tmp/died/checkpoints/LATEST")" = iter_000002
check "died: the checkpoint is whole" -- test -s "$tmp/died/checkpoints/iter_000002/networks.pt" -a \
  -s "$tmp/died/checkpoints/iter_000002/strategy.rank1.s0.mem"
run resumed 0 -- --resume "$tmp/died" --nproc 2 --quiet
same_as resume "$tmp/died/metrics.jsonl" "$tmp/smoke2/metrics.jsonl" "1 2 3 4"
# ... on the same number of ranks only.
run resume3 2 -- --resume "$tmp/died" --nproc 3 --quiet
grep -q "written by 2 process(es)" "$tmp/resume3.err" && pass || { fail "resume on 3 ranks refused"; cat "$tmp/resume3.err"; }

# 3b. kill -9 at every step of iteration 2's commit sequence, of rank 1 and of the launcher
#     (which takes its ranks with it): a resume on 2 ranks ends with every iteration's metrics
#     line exactly once, equal to the uninterrupted run's, and retention re-applied. Rank 0 (the
#     one that publishes) is killed here once, between staging and publishing; its kills at
#     every step, on one process, are tests/cli/cli_test.sh's (all four here cost CI a minute).
kills=("${smoke[@]}" --set run.iterations=3 --set run.checkpoint_every=1 --set run.keep_every=0
       --nproc 2)
run kill_reference 0 -- "${kills[@]}" --run-dir "$tmp/kill_reference"
for step in start staged published metrics; do
  victims=(exit:1 kill-launcher:0)
  [[ $step == staged ]] && victims+=(exit:0)
  for victim in "${victims[@]}"; do
    name="kill-${victim%%:*}-rank${victim##*:}-$step"
    want=3
    [[ $victim == kill-launcher* ]] && want=137
    LCFR_TEST_FAULT="$victim:2:$step" run "$name" "$want" -- "${kills[@]}" --run-dir "$tmp/$name"
    # Ranks die with their launcher as soon as the kernel delivers their SIGKILL: allow 10 s.
    for _ in $(seq 50); do pgrep -f -- "--run-dir $tmp/$name" >/dev/null || break; sleep 0.2; done
    check "$name: no rank outlives the run" -- test -z "$(pgrep -f -- "--run-dir $tmp/$name" || true)"
    run "$name-resumed" 0 -- --resume "$tmp/$name" --nproc 2 --quiet
    check "$name: iterations 1 2 3 once each" -- test \
      "$(python3 -c "import json,sys; print(' '.join(str(json.loads(l)['iteration']) for l in open(sys.argv[1]) if l.strip()))" "$tmp/$name/metrics.jsonl")" = "1 2 3"
    same_as "$name" "$tmp/$name/metrics.jsonl" "$tmp/kill_reference/metrics.jsonl" "1 2 3"
    latest=$(cat "$tmp/$name/checkpoints/LATEST")
    check "$name: only the latest checkpoint keeps memories" -- test \
      "$(find "$tmp/$name/checkpoints" -name '*.mem' -not -path "*/$latest/*" | wc -l)" -eq 0
  done
done

# 4. A rank that hangs: the others give up after distributed.timeout_s, within bounded time.
LCFR_TEST_FAULT=hang:1:3 run hung 1 -- "${smoke[@]}" --set distributed.timeout_s=5 --nproc 2 \
  --run-dir "$tmp/hung"
grep -q "did not answer within 5 s" "$tmp/hung.err" && pass || { fail "hung: timeout message"; cat "$tmp/hung.err"; }
check "hung: stopped within 60 s (took ${elapsed} s)" -- test "$elapsed" -lt 60
check "hung: LATEST is the intact checkpoint of iteration 2" -- \
  test -s "$tmp/hung/checkpoints/$(cat "$tmp/hung/checkpoints/LATEST")/networks.pt" -a \
  "$(cat "$tmp/hung/checkpoints/LATEST")" = iter_000002

# 4b. A peer that never comes: one clear line, without c10d's own log lines and backtraces.
WORLD_SIZE=2 RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((20000 + RANDOM % 20000)) \
  run lonely 1 -- "${smoke[@]}" --set distributed.timeout_s=3 --run-dir "$tmp/lonely"
grep -q "cannot join the run at 127.0.0.1" "$tmp/lonely.err" && pass || { fail "lonely: message"; cat "$tmp/lonely.err"; }
check "lonely: one line on stderr" -- test "$(wc -l <"$tmp/lonely.err")" -eq 1
check "lonely: no run directory" -- test ! -e "$tmp/lonely"

# 5. SIGTERM to the --nproc launcher (a scheduler ending the job) reaches every rank.
"$lcfr" train "${smoke[@]}" --set run.iterations=1000 --nproc 2 --run-dir "$tmp/term" \
  >"$tmp/term.out" 2>"$tmp/term.err" </dev/null &
launcher=$!
for _ in $(seq 100); do [[ -s "$tmp/term/checkpoints/LATEST" ]] && break; sleep 0.2; done
kill -TERM "$launcher"
wait "$launcher"
check "term: the launcher exits non-zero" -- test $? -ne 0
sleep 1
check "term: no rank outlives it" -- test "$(pgrep -fc "run-dir $tmp/term")" -eq 0
grep -q "signal 15 received" "$tmp/term.err" && pass || { fail "term: message"; cat "$tmp/term.err"; }
check "term: LATEST intact" -- test -s "$tmp/term/checkpoints/$(cat "$tmp/term/checkpoints/LATEST")/networks.pt"

# 6. Bad launches.
WORLD_SIZE=2 run norank 2 -- "${smoke[@]}" --run-dir "$tmp/norank"
grep -q "RANK is not set" "$tmp/norank.err" && pass || { fail "WORLD_SIZE without RANK"; cat "$tmp/norank.err"; }
WORLD_SIZE=2 RANK=0 run nodir 2 -- "${smoke[@]}"
grep -q "need the same --run-dir" "$tmp/nodir.err" && pass || { fail "several ranks without --run-dir"; cat "$tmp/nodir.err"; }
WORLD_SIZE=2 run both 2 -- "${smoke[@]}" --nproc 2 --run-dir "$tmp/both"
grep -q "unset WORLD_SIZE" "$tmp/both.err" && pass || { fail "--nproc with WORLD_SIZE"; cat "$tmp/both.err"; }
WORLD_SIZE=2 RANK=5 run badrank 2 -- "${smoke[@]}" --run-dir "$tmp/badrank"
grep -q "RANK='5'" "$tmp/badrank.err" && pass || { fail "RANK out of range"; cat "$tmp/badrank.err"; }

echo "$passes passed, $failures failed"
[[ $failures -eq 0 ]]
