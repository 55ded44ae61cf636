#!/usr/bin/env bash
# run_fuzzer.sh FUZZER SEED_CORPUS SECONDS: runs a libFuzzer target for SECONDS on a copy of its
# seed corpus (the checked-in corpus is never modified) and prints the executions it ran. Any
# crash, sanitizer report, leak or timeout fails; the input that caused it is kept in
# $LCFR_FUZZ_ARTIFACTS (default: the current directory) and printed.
set -uo pipefail
fuzzer="$1" seeds="$2" seconds="${3:-5}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$seeds/." "$work/"
artifacts="${LCFR_FUZZ_ARTIFACTS:-$PWD}"
mkdir -p "$artifacts"
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
  "$fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$artifacts/$(basename "$fuzzer")-" "$work" >"$work/log" 2>&1
rc=$?
runs=$(grep -oE 'Done [0-9]+ runs' "$work/log" | grep -oE '[0-9]+' | tail -1)
if [[ $rc -ne 0 ]]; then
  tail -40 "$work/log"
  echo "$(basename "$fuzzer"): FAILED (exit $rc); the input is under $artifacts"
  exit 1
fi
echo "$(basename "$fuzzer"): ${runs:-?} executions in ${seconds} s, no failure"
