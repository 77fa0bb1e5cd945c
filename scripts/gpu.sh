#!/bin/sh
# gpu.sh — on a machine with an NVIDIA GPU (the lent H100), in ONE call of at most ~9.5 min:
#   1. build enigma (Release) with cmake + ninja
#   2. the CUDA benchmark (bench/cuda/bench_cuda.cu: copy bandwidth, reduction vs CUB,
#      dispatch overhead vs raw cuLaunchKernel, compile times, seed kernels vs hand CUDA)
#   3. the whole ctest suite with the cuda backend selected, then the GPU test twice more:
#      its fault recovery noted, and every call through the CUDA worker (ENIGMA_CUDA_ISOLATE)
#   4. the GPU test kernels under compute-sanitizer (memcheck, racecheck, synccheck)
#   5. the Python suites (tests/semantic, tests/cli, python/tests) with the cuda backend
# Logs, and bench/RESULTS-cuda.txt as RESULTS-cuda.txt, go to $OUT (the device tool brings
# that folder back). Each step gets what is left of the time budget, the benchmark first.
#
# How the suites pick the backend (every test owner's runner reads one of these):
#   ENIGMA_BACKEND=cuda        the CLI-driven suites (tests/semantic passes --backend)
#   ENIGMA_TEST_BACKEND=cuda   C tests that open a device (tests/runtime)
#
#   sh scripts/gpu.sh            everything
#   sh scripts/gpu.sh bench      build + benchmark only
#   sh scripts/gpu.sh test       build + tests only
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/enigma-gpu}
mkdir -p "$OUT"
what=${1:-all}
budget=${ENIGMA_GPU_BUDGET:-560} # seconds for the whole script
start=$(date +%s)
jobs=$(nproc 2>/dev/null || echo 8)
build=build-gpu
export ENIGMA_BACKEND=cuda ENIGMA_TEST_BACKEND=cuda ENIGMA_CACHE_DIR=/tmp/enigma-gpu-cache
summary=""
note() { summary="$summary$1
"; echo "$1"; }
# seconds left, at most $1
left() {
  l=$((budget - ($(date +%s) - start)))
  [ "$l" -gt "$1" ] && l=$1
  [ "$l" -lt 5 ] && l=5
  echo "$l"
}

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | tee "$OUT/gpu.txt"
nvcc --version | tail -n 2

echo "== build"
gen="-G Ninja"; command -v ninja >/dev/null 2>&1 || gen=""
if timeout "$(left 150)" cmake -S . -B $build $gen -DCMAKE_BUILD_TYPE=Release -DENIGMA_WERROR=OFF >"$OUT/build.log" 2>&1 &&
   timeout "$(left 200)" cmake --build $build -j "$jobs" >>"$OUT/build.log" 2>&1; then
  note "build: ok ($(($(date +%s) - start)) s)"
else
  tail -n 40 "$OUT/build.log"; note "build: FAILED (see build.log)"; echo "$summary"; exit 1
fi

if [ "$what" != test ]; then
  echo "== bench"
  cuda_home=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
  # against the shared library: it holds every object of libenigma, whatever a static
  # link would pull in
  if timeout "$(left 120)" nvcc -O3 -arch=sm_90 -std=c++17 bench/cuda/bench_cuda.cu -I include \
       -L$build -lenigma -Xlinker -rpath -Xlinker "$PWD/$build" \
       -L"$cuda_home/lib64" -Xlinker -rpath -Xlinker "$cuda_home/lib64" -L"$cuda_home/lib64/stubs" \
       -lcuda -lnvrtc -ldl -lpthread -lm \
       -o $build/bench_cuda >"$OUT/bench-build.log" 2>&1; then
    timeout "$(left 200)" $build/bench_cuda bench/cuda "$OUT/RESULTS-cuda.txt" >"$OUT/bench.log" 2>&1
    rc=$?
    cat "$OUT/bench.log"
    note "bench: exit $rc ($(($(date +%s) - start)) s)"
  else
    tail -n 30 "$OUT/bench-build.log"; note "bench: build FAILED"
  fi
fi

if [ "$what" != bench ]; then
  echo "== ctest (ENIGMA_TEST_BACKEND=cuda)"
  (cd $build && timeout "$(left 200)" ctest -j "$jobs" --output-on-failure --timeout 120) >"$OUT/ctest-cuda.log" 2>&1
  grep -E "tests passed|\*\*\*Failed|Failed  |Timeout|Not Run|Skipped" "$OUT/ctest-cuda.log" | tail -n 30
  note "ctest: $(grep -E 'tests passed' "$OUT/ctest-cuda.log" | tail -n 1) ($(($(date +%s) - start)) s)"
  grep -A30 "cuda.gpu" "$OUT/ctest-cuda.log" | grep -E "FAILED|skipped" | head -n 10

  # fault recovery on the real driver (test_fault: two faults, the second inside the CUDA
  # worker process), then every test kernel through the worker from the start: the only
  # check of launches packed from the real driver's cuFuncGetParamInfo layouts
  timeout "$(left 60)" $build/tests/test_cuda_gpu >"$OUT/gpu-recovery.log" 2>&1
  note "test_cuda_gpu (faults recovered in a worker): exit $? ($(grep -c 'fresh worker process' "$OUT/gpu-recovery.log") faults recovered in a fresh worker)"
  ENIGMA_CUDA_ISOLATE=1 timeout "$(left 60)" $build/tests/test_cuda_gpu >"$OUT/gpu-isolate.log" 2>&1
  note "test_cuda_gpu with ENIGMA_CUDA_ISOLATE=1 (every call through the worker): exit $?"

  if command -v compute-sanitizer >/dev/null 2>&1; then
    # the Metal-model test kernels under NVIDIA's checkers (the planted fault left out)
    for tool in memcheck racecheck synccheck; do
      ENIGMA_TEST_NO_FAULT=1 timeout "$(left 60)" compute-sanitizer --tool $tool --error-exitcode 9 \
        $build/tests/test_cuda_gpu >"$OUT/sanitizer-$tool.log" 2>&1
      note "compute-sanitizer $tool: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-$tool.log" | tail -n 1))"
    done
  fi

  py=""
  for d in tests/semantic tests/cli python/tests; do ls $d/test_*.py >/dev/null 2>&1 && py="$py $d"; done
  if [ -n "$py" ]; then
    echo "== pytest$py (ENIGMA_BACKEND=cuda)"
    ENIGMA_LIBRARY="$PWD/$build/libenigma.so" ENIGMA_CLI="$PWD/$build/enigma" PYTHONPATH="$PWD/python" \
      timeout "$(left 200)" python3 -m pytest -q -p no:cacheprovider $py >"$OUT/pytest-cuda.log" 2>&1
    tail -n 15 "$OUT/pytest-cuda.log"
    note "pytest: $(grep -E '[0-9]+ (passed|failed)' "$OUT/pytest-cuda.log" | tail -n 1) ($(($(date +%s) - start)) s)"
  fi
fi

echo "== summary"
echo "$summary"
