#!/bin/sh
# gemm.sh — issue 11 on a GPU machine, in one call: build enigma, then (in parallel where they
# do not compete for the GPU's time) the simdgroup-matrix tests on the cuda backend, the GEMM
# benchmark against cuBLAS, ncu's tensor-pipe figures for enigma's kernels, and the SASS of
# the generated GEMM (tensor-core instructions, no local memory). Logs go to $OUT.
#
#   sh bench/cuda/gemm.sh [all|bench|test]      (from the repository root)
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/enigma-gemm}
mkdir -p "$OUT"
what=${1:-all}
build=build-gpu
jobs=$(nproc 2>/dev/null || echo 8)
export ENIGMA_CACHE_DIR=/tmp/enigma-gemm-cache
start=$(date +%s)
stamp() { echo "[$(($(date +%s) - start)) s] $*"; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
gen="-G Ninja"; command -v ninja >/dev/null 2>&1 || gen=""
if ! { cmake -S . -B $build $gen -DCMAKE_BUILD_TYPE=Release -DENIGMA_WERROR=OFF >"$OUT/build.log" 2>&1 &&
       cmake --build $build -j "$jobs" >>"$OUT/build.log" 2>&1; }; then
  tail -n 30 "$OUT/build.log"; stamp "build FAILED"; exit 1
fi
stamp "build ok"

if [ "$what" != test ]; then
  cuda_home=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
  nvcc -O3 -arch=sm_90 -std=c++17 bench/cuda/bench_gemm.cu -I include -L$build -lenigma -lcublas \
    -Xlinker -rpath -Xlinker "$PWD/$build" -L"$cuda_home/lib64" -Xlinker -rpath -Xlinker "$cuda_home/lib64" \
    -o $build/bench_gemm >"$OUT/bench-build.log" 2>&1 || { tail -n 20 "$OUT/bench-build.log"; stamp "bench build FAILED"; }
  # the generated GEMM's SASS: tensor-core instructions, shared loads, no local memory
  $build/enigma compile --emit cuda bench/cuda/gemm_simdgroup.metal >"$OUT/gemm_simdgroup.cu" 2>&1
  nvcc -cubin -arch=sm_90 -std=c++17 -O3 -Xptxas -v "$OUT/gemm_simdgroup.cu" -o $build/gemm_simdgroup.cubin \
    >"$OUT/ptxas.log" 2>&1
  cuobjdump -sass $build/gemm_simdgroup.cubin >"$OUT/gemm_simdgroup.sass" 2>&1
  for k in gemm_f16__en_fast gemm_bf16__en_fast gemm_f32__en_fast; do
    awk -v k="$k" '/Function : /{on = index($0, k) && !index($0, k "x")} on' "$OUT/gemm_simdgroup.sass" >"$OUT/$k.sass"
    echo "$k SASS: $(grep -c HMMA "$OUT/$k.sass") HMMA, $(grep -c MOVM "$OUT/$k.sass") MOVM, $(grep -c -E 'LDS|LDSM' "$OUT/$k.sass") LDS, $(grep -c -E 'LDL|STL' "$OUT/$k.sass") local-memory accesses"
  done | tee "$OUT/sass-summary.txt"
  stamp "bench: running (alone on the GPU)"
  timeout 200 $build/bench_gemm bench/cuda "${GEMM_SIZE:-4096}" "$OUT/RESULTS-gemm.txt" 2>&1 | tee "$OUT/bench.log"
fi
if [ "$what" != bench ]; then
  # the matrix suites as they are, and the SIMD-function suites with Metal's lanes renumbered
  # (ENIGMA_CUDA_APPLE_LANES=1: how modules that call thread_elements() run)
  export ENIGMA_LIBRARY="$PWD/$build/libenigma.so" ENIGMA_CLI="$PWD/$build/enigma" PYTHONPATH="$PWD/python"
  for f in simdgroup_matrix types matrices simd dispatch edges barriers uniform atomics; do
    ENIGMA_BACKEND=cuda timeout 300 python3 -m pytest -q -p no:cacheprovider tests/semantic/test_sem_$f.py \
      >"$OUT/pytest-$f.log" 2>&1 &
  done
  for f in simd dispatch edges barriers uniform atomics; do
    ENIGMA_CUDA_APPLE_LANES=1 ENIGMA_BACKEND=cuda timeout 300 python3 -m pytest -q -p no:cacheprovider \
      tests/semantic/test_sem_$f.py >"$OUT/pytest-apple-lanes-$f.log" 2>&1 &
  done
  (cd $build && ENIGMA_TEST_BACKEND=cuda timeout 400 ctest -j 6 --timeout 200 -R "cuda|runtime" \
     >"$OUT/ctest-cuda.log" 2>&1) &
fi

if [ "$what" != test ]; then
  if command -v ncu >/dev/null 2>&1; then
    GEMM_PROFILE=1 timeout 200 ncu --kernel-name regex:"gemm_(f16|bf16|f32)" \
      --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
      $build/bench_gemm bench/cuda "${GEMM_SIZE:-4096}" >"$OUT/ncu.log" 2>&1
    stamp "ncu: exit $?"
  fi
fi
wait
if [ "$what" != bench ]; then
  for f in "$OUT"/pytest-*.log; do echo "$(basename "$f"): $(tail -n 1 "$f")"; done
  echo "ctest: $(grep -E 'tests passed' "$OUT/ctest-cuda.log")"
  grep -E "\(Failed\)|Timeout|\*\*\*" "$OUT/ctest-cuda.log" | head -n 20
fi
stamp "done"
