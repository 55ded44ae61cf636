#!/usr/bin/env bash
# run_fuzzer.sh FUZZER SEED_CORPUS SECONDS [RUNS]: runs a libFuzzer target for SECONDS on a copy
# of its seed corpus (the checked-in corpus is never modified) and prints the executions it ran.
# With RUNS (the test suite's short run) it runs exactly RUNS inputs from libFuzzer's seed 1, so
# the suite's result is reproducible; SECONDS is then only a cap. Without, a random seed. Any
# crash, sanitizer report, leak or timeout fails; the input that caused it is kept in
# $LCFR_FUZZ_ARTIFACTS (default: the current directory) and printed.
set -uo pipefail
fuzzer="$1" seeds="$2" seconds="${3:-5}" runs="${4:-}"
limits=(-max_total_time="$seconds")
[[ -n $runs ]] && limits+=(-runs="$runs" -seed=1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$seeds/." "$work/"
artifacts="${LCFR_FUZZ_ARTIFACTS:-$PWD}"
mkdir -p "$artifacts"
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
  "$fuzzer" "${limits[@]}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$artifacts/$(basename "$fuzzer")-" "$work" >"$work/log" 2>&1
rc=$?
if [[ $rc -ne 0 ]]; then
  tail -40 "$work/log"
  echo "$(basename "$fuzzer"): FAILED (exit $rc); the input is under $artifacts"
  exit 1
fi
executed=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$work/log" | tail -1)
echo "$(basename "$fuzzer"): ${executed:-?}, no failure"
