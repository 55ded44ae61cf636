#!/usr/bin/env bash
# The GPU check (issue 4): on a machine with a CUDA GPU, CUDA, cmake, ninja, a C++ compiler and a
# Python with torch 2.11, but no package access, build lcfr and bench_policy_boundary against
# that torch and the Debian packages carried in .gpu_bundle (made here by
# scripts/gpu_bundle.sh), then run the CUDA microbenches and a short CUDA sweep. Results go to
# $OUT (the device tool's output folder) or ./gpu_check_out. Then the search at play time on
# CUDA (issue 14): its CUDA test against the CPU, rollouts per second against width on CPU and
# CUDA, and `lcfr agent --search` latency on each. Budget: under 8 minutes.
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
say "building lcfr, bench_policy_boundary, inference_tests and learner_tests"
timeout 360 cmake --build "$build" --target lcfr bench_policy_boundary inference_tests learner_tests \
  -j "$(nproc)" \
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
say "CUDA search correctness: learner_tests [cuda] (the search on CUDA against the CPU)"
timeout 120 "$build/tests/training/learner_tests" "[cuda]" --success --reporter compact \
  > "$out/search_cuda_tests.txt" 2>&1 && search_tests=passed || search_tests=FAILED
tail -5 "$out/search_cuda_tests.txt"
say "CUDA search tests: $search_tests"

# lcfr eval --search over the shipped model, with its own rollouts (300 a decision: one call of
# the full model per rollout decision, the heaviest network load) and with its student's (1,000):
# 8 games at a time, one search thread each; the CPU at the default width, CUDA at two.
model=$root/models/lost-cities.pt
student=$root/models/lost-cities-student.pt
say "search: rollouts per second and rows per forward against width, CPU and CUDA"
echo "| device | rollouts | width | rollouts/s (8 game threads) | rows per forward | mean ms a decision |" |
  tee "$out/search_sweep.md"
echo "|---|---|---:|---:|---:|---:|" | tee -a "$out/search_sweep.md"
for run in cpu,model,128 cpu,student,128 cuda,model,128 cuda,model,512 cuda,student,128 \
           cuda,student,512; do
  IFS=, read -r device rollouts width <<< "$run"
  extra=(--rollouts 300)
  [[ $rollouts == student ]] && extra=(--rollouts 1000 --rollout-model "$student")
  name=search_${device}_${rollouts}_${width}
  timeout 60 "$build/apps/lcfr" eval --model "$model" --policy current --search "${extra[@]}" \
    --search-width "$width" --workers 8 --games 8 --seed 1 --opponent heuristic-balanced \
    --device "$device" --json > "$out/$name.json" 2> "$out/$name.err" &&
    "$python" -c "import json,sys; s=json.load(open(sys.argv[1]))['search']; print(f\"| $device | $rollouts | $width | {s['rollouts_per_s']:.0f} | {s['rows_per_forward']:.1f} | {s['mean_ms']:.0f} |\")" \
      "$out/$name.json" | tee -a "$out/search_sweep.md" ||
    echo "| $device | $rollouts | $width | FAILED (exit or timeout): $(tail -1 "$out/$name.err") | | |" |
    tee -a "$out/search_sweep.md"
done

say "search: lcfr agent --search latency at the default budget (2,000 student rollouts, 2 workers)"
line='{"decision":"card","hand":["Y2","Y3","B4","B5","W6","G7","R8","R9"],"deck_size":44}'
for device in cpu cuda; do
  t0=$(date +%s.%N)
  for _ in 1 2 3 4 5; do echo "$line"; done |
    timeout 60 "$build/apps/lcfr" agent --search --device "$device" > "$out/agent_$device.txt" \
      2> "$out/agent_$device.err" || echo "agent --device $device FAILED: $(tail -1 "$out/agent_$device.err")"
  t1=$(date +%s.%N)
  "$python" -c "print(f'agent --search --device $device: {($t1 - $t0) / 5 * 1000:.0f} ms per opening decision (5 decisions, model load included)')" |
    tee -a "$out/search_sweep.md"
done
say "done (CUDA correctness tests: $cuda_tests; CUDA search tests: $search_tests)"
[[ $cuda_tests == passed && $search_tests == passed ]]
