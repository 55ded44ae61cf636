#!/usr/bin/env bash
# The GPU check (issue 4): on a machine with a CUDA GPU, CUDA, cmake, ninja, a C++ compiler and a
# Python with torch 2.11, but no package access, build lcfr and bench_policy_boundary against
# that torch and the Debian packages carried in .gpu_bundle (made here by
# scripts/gpu_bundle.sh), then run the CUDA microbenches and a short CUDA sweep. Results go to
# $OUT (the device tool's output folder) or ./gpu_check_out. Budget: under 8 minutes.
#
#   scripts/gpu_bundle.sh                      # here, once: .gpu_bundle/ (about 12 MiB)
#   run: bash scripts/gpu_check.sh             # there, carrying .gpu_bundle
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/gpu_check_out}
prefix=$root/.gpu_bundle/prefix
start=$(date +%s)
say() { echo "[gpu_check +$(( $(date +%s) - start ))s] $*"; }
mkdir -p "$out"
exec > >(tee "$out/gpu_check.log") 2>&1

[[ -d $prefix/usr/include/absl ]] || { say "no .gpu_bundle: run scripts/gpu_bundle.sh here and carry .gpu_bundle"; exit 2; }
python=${PYTHON:-python3}
torch_prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')
say "torch $("$python" -c 'import torch; print(torch.__version__, torch.cuda.is_available())') at $torch_prefix"
nvidia-smi -L || true
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)

build=$root/build-gpu
say "configuring"
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DLCFR_BUILD_TESTS=ON -DLCFR_WERROR=OFF -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
  -DTORCH_CUDA_ARCH_LIST=9.0 -DCMAKE_PREFIX_PATH="$torch_prefix;$prefix/usr" > "$out/configure.log"
say "building lcfr, bench_policy_boundary and inference_tests"
timeout 360 cmake --build "$build" --target lcfr bench_policy_boundary inference_tests -j "$(nproc)" \
  > "$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; say "build failed"; exit 1; }
export LD_LIBRARY_PATH=$prefix/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
"$build/apps/lcfr" info | head -20

say "CUDA correctness: inference_tests [cuda] (the CUDA path against the CPU reference)"
timeout 120 "$build/tests/inference/inference_tests" "[cuda]" --success --reporter compact \
  > "$out/inference_cuda_tests.txt" 2>&1 && cuda_tests=passed || cuda_tests=FAILED
tail -5 "$out/inference_cuda_tests.txt"
say "CUDA correctness tests: $cuda_tests"

say "CUDA microbenches"
timeout 150 "$build/benchmarks/bench_policy_boundary" \
  --benchmark_filter='Cuda|BM_OneRowPolicyCall$|BM_BatchedForward/(1|64|256)$' \
  --benchmark_min_time=0.2 --benchmark_out="$out/bench_policy_boundary.json" \
  --benchmark_out_format=json | tee "$out/bench_policy_boundary.txt"

say "CUDA sweep: 8 workers, both players' advantage networks in every batch"
timeout 120 "$build/apps/lcfr" sweep --device cuda --workers 8 --depth 0 --traversals 64 \
  --widths 1,8,64,256,1024 --csv "$out/sweep_cuda.csv" | tee "$out/sweep_cuda.txt"
say "CUDA sweep with CUDA graphs"
timeout 60 "$build/apps/lcfr" sweep --device cuda --cuda-graphs --no-recursive --workers 8 \
  --depth 0 --traversals 64 --widths 64,256 --csv "$out/sweep_cuda_graphs.csv" |
  tee "$out/sweep_cuda_graphs.txt"
say "done (CUDA correctness tests: $cuda_tests)"
[[ $cuda_tests == passed ]]
