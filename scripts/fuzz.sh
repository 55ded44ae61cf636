#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan + UBSan, torch-free) in build-fuzz/ and runs
# them: each for SECONDS (default 60) on a copy of its seed corpus. Inputs that fail are kept in
# fuzz-artifacts/ (and printed); add them to fuzz/corpus/TARGET once fixed.
#
#   scripts/fuzz.sh                  every target, 60 s each
#   scripts/fuzz.sh 600 record       one target for ten minutes
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

seconds="${1:-60}"
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(record agent_line config state_json checksums metrics_line)
command -v clang++ >/dev/null || die "needs clang (scripts/setup.sh installs it)"
log "building the fuzz targets (clang, ASan + UBSan) in build-fuzz/"
CC=clang CXX=clang++ LCFR_BUILD_TYPE=RelWithDebInfo configure_and_build "$LCFR_ROOT/build-fuzz" \
  -DLCFR_WITH_TORCH=OFF -DLCFR_SANITIZE=ON -DLCFR_FUZZ=ON -DLCFR_BUILD_BENCHMARKS=OFF \
  -DLCFR_BUILD_TESTS=OFF
failed=0
for target in "${targets[@]}"; do
  LCFR_FUZZ_ARTIFACTS="$LCFR_ROOT/fuzz-artifacts" bash "$LCFR_ROOT/fuzz/run_fuzzer.sh" \
    "$LCFR_ROOT/build-fuzz/fuzz/fuzz_$target" "$LCFR_ROOT/fuzz/corpus/$target" "$seconds" ||
    failed=1
done
exit "$failed"
