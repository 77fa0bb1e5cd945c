#!/bin/sh
# gemm.sh — issue 11 on a GPU machine, in one call: build enigma, then the GEMM benchmark
# against cuBLAS (alone on the GPU), the simdgroup-matrix tests on the cuda backend, ncu's
# tensor-pipe figures for enigma's kernels (after the tests), the SASS of the generated
# GEMM (tensor-core instructions, no local memory), and cuBLASLt held to a 64x64 tile and a
# few others (cublaslt_tiles.cu), the operand stream of a tile alone (operand_stream.cu) and
# the tensor pipe per wgmma shape (wgmma_shape.cu).
# Logs go to $OUT (a few files: bench.log, tiles.log, stream.log, shape.log,
# ncu.log, sass.txt, tests.log, build.log).
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

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
work=$PWD/$build/gemm-logs
mkdir -p $work
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
  # the generated GEMM's SASS: tensor-core instructions, shared loads, no local memory (sm_90a,
  # as the library builds it on an H100: the __en_wg entry points of gemm_f16/gemm_bf16 and
  # their _pipelined forms are the wgmma form, HGMMA; the __en_fast ones the kernel as written)
  $build/enigma compile --emit cuda bench/cuda/gemm_simdgroup.metal >$work/gemm_simdgroup.cu 2>&1
  nvcc -cubin -arch=sm_90a -std=c++17 -O3 -Xptxas -v $work/gemm_simdgroup.cu -o $work/gemm_simdgroup.cubin \
    >$work/ptxas.log 2>&1
  cuobjdump -sass $work/gemm_simdgroup.cubin >$work/gemm_simdgroup.sass 2>&1
  for k in gemm_f16__en_wg gemm_f16_pipelined__en_wg gemm_f16__en_fast gemm_f16_pipelined__en_fast \
           gemm_f16_prefetch2__en_fast gemm_f16_wide__en_fast gemm_bf16__en_wg gemm_bf16_pipelined__en_wg \
           gemm_f32__en_fast gemm_f32_pipelined__en_fast; do
    awk -v k="$k" '/Function : /{on = ($3 == k)} on' $work/gemm_simdgroup.sass >$work/$k.sass
    echo "$k SASS: $(grep -c HGMMA $work/$k.sass) HGMMA, $(grep -c HMMA.16816 $work/$k.sass) HMMA.16816, $(grep -c HMMA.1688 $work/$k.sass) HMMA.1688, $(grep -c MOVM $work/$k.sass) MOVM, $(grep -c LDSM $work/$k.sass) LDSM, $(grep -E 'LDS' $work/$k.sass | grep -c -v LDSM) other LDS, $(grep -c -E 'LDL|STL' $work/$k.sass) local-memory accesses"
  done | tee "$OUT/sass.txt"
  grep -A4 -E "_en_(fast|wg)'" $work/ptxas.log | grep -E "Compiling|registers" | sed 's/ptxas info *: //' | paste - - >>"$OUT/sass.txt"
  cp $work/gemm_f16_pipelined__en_wg.sass "$OUT/gemm_f16_pipelined.sass"
  stamp "bench: running (alone on the GPU)"
  timeout 200 $build/bench_gemm bench/cuda "${GEMM_SIZE:-4096}" 2>&1 | tee "$OUT/bench.log"
  # the yardstick of a 64x64 tile: cuBLASLt held to each of a few tiles (cublaslt_tiles.cu)
  nvcc -O3 -arch=sm_90 -std=c++17 bench/cuda/cublaslt_tiles.cu -L"$cuda_home/lib64" -lcublasLt -lcublas \
    -Xlinker -rpath -Xlinker "$cuda_home/lib64" -o $build/cublaslt_tiles >>"$OUT/bench-build.log" 2>&1 &&
    timeout 200 $build/cublaslt_tiles "${GEMM_SIZE:-4096}" 2>&1 | tee "$OUT/tiles.log"
  # the ceiling of a tile before any arithmetic: its operands streamed through shared memory alone
  nvcc -O3 -arch=sm_90 -std=c++17 bench/cuda/operand_stream.cu -L"$cuda_home/lib64" -lcublas \
    -Xlinker -rpath -Xlinker "$cuda_home/lib64" -o $build/operand_stream >>"$OUT/bench-build.log" 2>&1 &&
    timeout 100 $build/operand_stream "${GEMM_SIZE:-4096}" 2>&1 | tee "$OUT/stream.log"
  # the ceiling of the multiplies alone: the tensor pipe per wgmma shape, operands in shared memory
  nvcc -O3 -gencode arch=compute_90a,code=sm_90a -std=c++17 bench/cuda/wgmma_shape.cu \
    -o $build/wgmma_shape >>"$OUT/bench-build.log" 2>&1 &&
    timeout 100 $build/wgmma_shape 2>&1 | tee "$OUT/shape.log"
fi
if [ "$what" != bench ]; then
  # the matrix suites as they are, and the SIMD-function suites with Metal's lanes renumbered
  # (ENIGMA_CUDA_APPLE_LANES=1: how modules that call thread_elements() run)
  export ENIGMA_LIBRARY="$PWD/$build/libenigma.so" ENIGMA_CLI="$PWD/$build/enigma" PYTHONPATH="$PWD/python"
  for f in simdgroup_matrix wgmma types matrices simd dispatch edges barriers uniform atomics; do
    ENIGMA_BACKEND=cuda timeout 300 python3 -m pytest -q -p no:cacheprovider tests/semantic/test_sem_$f.py \
      >$work/pytest-$f.log 2>&1 &
  done
  for f in simd dispatch edges barriers uniform atomics; do
    ENIGMA_CUDA_APPLE_LANES=1 ENIGMA_BACKEND=cuda timeout 300 python3 -m pytest -q -p no:cacheprovider \
      tests/semantic/test_sem_$f.py >$work/pytest-apple-lanes-$f.log 2>&1 &
  done
  (cd $build && ENIGMA_TEST_BACKEND=cuda timeout 400 ctest -j 6 --timeout 200 -R "cuda|runtime" \
     >$work/ctest-cuda.log 2>&1) &
fi

# ncu after the tests: its replays failed to launch once (run 6) while they used the GPU
wait
if [ "$what" != test ] && [ "${NCU:-1}" = 1 ] && command -v ncu >/dev/null 2>&1; then
  # (NCU=0 skips this step) one dispatch of each enigma kernel (GEMM_PROFILE=1): tensor pipe (hmma: mma.sync only;
  # sm__pipe_tensor_cycles: every MMA, wgmma's too), L2, shared memory, occupancy
  # (and the warp-state section: what the warps wait for; launch and occupancy sections)
  GEMM_PROFILE=1 timeout 200 ncu --kernel-name regex:"gemm_(f16|bf16|f32)" --section WarpStateStats --section LaunchStats --section Occupancy --page raw \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
    $build/bench_gemm bench/cuda "${GEMM_SIZE:-4096}" >"$OUT/ncu.log" 2>&1
  stamp "ncu: exit $?"
  # (occupancy: the registers, the shared-memory carveout the driver chose, and what limits
  # the threadgroups an SM)
  grep -E "gemm_|hmma|tensor_cycles|sm__throughput|lts__t_sectors.avg|warps_active|duration|launch__shared_mem_config_size|launch__occupancy_limit_(registers|shared_mem)|launch__registers_per_thread" "$OUT/ncu.log" | tr -s ' '
  # what the pipelined and wide f16 kernels' warps wait for (cycles per issued instruction, by reason)
  awk '/^ *gemm_/{on = /gemm_f16_(pipelined|wide)__/; if (on) print} on && /issue_stalled_.*per_issue_active.ratio/ && $NF + 0 >= 0.2' \
    "$OUT/ncu.log" | tr -s ' '
fi
wait
if [ "$what" != bench ]; then
  { for f in $work/pytest-*.log; do echo "$(basename "$f"): $(tail -n 1 "$f")"; done
    echo "ctest: $(grep -E 'tests passed' $work/ctest-cuda.log)"
    grep -E "\(Failed\)|Timeout|\*\*\*" $work/ctest-cuda.log | head -n 20
    for f in $work/pytest-*.log; do grep -q -E "[0-9] failed|[0-9] error" "$f" && { echo "== $f"; tail -n 60 "$f"; }; done
  } >"$OUT/tests.log" 2>&1
  head -n 40 "$OUT/tests.log"
fi
stamp "done"
