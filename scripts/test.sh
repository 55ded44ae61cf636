#!/usr/bin/env bash
# The whole test suite (README's test command; .ci/run calls it). Installs what is missing
# (the Debian packages and libtorch, scripts/setup.sh; the Python package's dependencies,
# scripts/setup_python.sh), checks the formatting, builds Release with libtorch and the Python
# package and runs the suites that need them (the networks, the trainer, the CLI, bad-input,
# golden and multi-process tests, the Python package's pytest suite), then builds the torch-free
# targets with AddressSanitizer + UndefinedBehaviorSanitizer (DCHECKs on) and runs their suites
# there (each check runs once, in the stricter build), runs the threaded ones (batcher, worker
# threads, the search's workers) under ThreadSanitizer, and runs every libFuzzer target of fuzz/
# for a few seconds (clang).
#
#   scripts/test.sh                 everything
#   scripts/test.sh --fast          only the torch-free targets, no sanitizers (inner loop)
#   scripts/test.sh --no-sanitize   skip the sanitizer build
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

mode=all
case "${1:-}" in
  "") ;;
  --fast) mode=fast ;;
  --no-sanitize) mode=nosan ;;
  *) die "unknown option '$1' (use --fast or --no-sanitize)" ;;
esac

start=$(date +%s)
if [[ $mode == fast ]]; then
  LCFR_SKIP_TORCH=1 bash "$LCFR_ROOT/scripts/setup.sh"
  bash "$LCFR_ROOT/scripts/format_check.sh"
  configure_and_build "$LCFR_ROOT/build-notorch" -DLCFR_WITH_TORCH=OFF
  (cd "$LCFR_ROOT/build-notorch" && ctest --output-on-failure -j "$(nproc)")
  exit 0
fi

bash "$LCFR_ROOT/scripts/setup.sh"
bash "$LCFR_ROOT/scripts/setup_python.sh"
bash "$LCFR_ROOT/scripts/format_check.sh"
# The torch-free suites run once: under the sanitizers below, or here with --no-sanitize.
torch_free_here=$([[ $mode == all ]] && echo OFF || echo ON)
log "building (Release, with libtorch and the Python package) in build/"
mapfile -t python_args < <(python_cmake_args)
configure_and_build "$LCFR_ROOT/build" -DCMAKE_PREFIX_PATH="$(torch_prefix_path)" \
  -DLCFR_TORCH_FREE_TESTS="$torch_free_here" "${python_args[@]}"
log "running the tests"
(cd "$LCFR_ROOT/build" && ctest --output-on-failure -j "$(nproc)")

if [[ $mode == all ]]; then
  log "building the torch-free targets with ASan + UBSan in build-asan/"
  LCFR_BUILD_TYPE=RelWithDebInfo configure_and_build "$LCFR_ROOT/build-asan" \
    -DLCFR_WITH_TORCH=OFF -DLCFR_SANITIZE=ON -DLCFR_BUILD_BENCHMARKS=OFF
  log "running the torch-free tests under the sanitizers"
  (cd "$LCFR_ROOT/build-asan" &&
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
      ctest --output-on-failure -j "$(nproc)")
  log "building the threaded tests (traversal, search) with ThreadSanitizer in build-tsan/"
  mkdir -p "$LCFR_ROOT/build-tsan"
  cmake -S "$LCFR_ROOT" -B "$LCFR_ROOT/build-tsan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DLCFR_WITH_TORCH=OFF -DLCFR_SANITIZE_THREAD=ON -DLCFR_BUILD_BENCHMARKS=OFF \
    > "$LCFR_ROOT/build-tsan/configure.log" 2>&1 ||
    { cat "$LCFR_ROOT/build-tsan/configure.log" >&2; die "cmake configure failed (build-tsan)"; }
  cmake --build "$LCFR_ROOT/build-tsan" --target traversal_tests search_tests -j "$(nproc)"
  log "running the threaded tests (batcher, worker threads, search workers) under ThreadSanitizer"
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    "$LCFR_ROOT/build-tsan/tests/traversal/traversal_tests" "[batcher],[threads]"
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    "$LCFR_ROOT/build-tsan/tests/search/search_tests" "[threads]"
  log "building the fuzz targets (clang, libFuzzer + ASan + UBSan) in build-fuzz/"
  mkdir -p "$LCFR_ROOT/build-fuzz"
  CC=clang CXX=clang++ cmake -S "$LCFR_ROOT" -B "$LCFR_ROOT/build-fuzz" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLCFR_WITH_TORCH=OFF -DLCFR_SANITIZE=ON -DLCFR_FUZZ=ON \
    -DLCFR_BUILD_BENCHMARKS=OFF -DLCFR_BUILD_TESTS=OFF > "$LCFR_ROOT/build-fuzz/configure.log" 2>&1 ||
    { cat "$LCFR_ROOT/build-fuzz/configure.log" >&2; die "cmake configure failed (build-fuzz)"; }
  # Only the fuzz targets and what they link (the search's library is not among them).
  cmake --build "$LCFR_ROOT/build-fuzz" -j "$(nproc)" --target \
    $(sed -n 's/^set(LCFR_FUZZ_TARGETS \(.*\))$/\1/p' "$LCFR_ROOT/fuzz/CMakeLists.txt" | sed 's/[^ ]*/fuzz_&/g')
  log "a short run of every fuzz target on its seed corpus (fuzz/README.md)"
  (cd "$LCFR_ROOT/build-fuzz" && ctest --output-on-failure -V -j "$(nproc)" | grep -E "runs in|FAILED|ERROR|SUMMARY|property|tests passed|tests failed")
fi
log "all tests passed in $(( $(date +%s) - start )) s"
