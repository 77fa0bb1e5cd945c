#!/bin/sh
# gpu_python.sh — on the lent GPU machine: build libenigma (Release) and run the Python
# package's tests on the cuda backend (PyTorch and CuPy CUDA tensors used in place, the
# MLX-style kernels, the README's torch example) and on the cpu backend (a torch CPU tensor
# and a NumPy array through one kernel), and tests/robust on cuda (time limits and cancel
# through the CUDA worker). Logs go to $OUT.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/enigma-gpu}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, cupy, numpy; print('torch', torch.__version__, 'cupy', cupy.__version__, 'numpy', numpy.__version__)"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DENIGMA_WERROR=OFF -DENIGMA_TESTS=OFF >"$OUT/build.log" 2>&1 &&
  cmake --build build-gpu -j "$(nproc)" >>"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
export ENIGMA_LIBRARY="$PWD/build-gpu/libenigma.so" PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
export ENIGMA_CACHE_DIR=/tmp/enigma-gpu-cache
rc=0
for backend in cuda cpu; do
  echo "== python/tests on $backend"
  ENIGMA_TEST_BACKEND=$backend python3 -m pytest -q -rs -p no:cacheprovider python/tests \
    >"$OUT/pytest-$backend.log" 2>&1 || rc=1
  grep -E "passed|failed|SKIPPED|Error" "$OUT/pytest-$backend.log" | tail -n 25
done
echo "== tests/robust on cuda (time limits, cancel, faults through the CUDA worker)"
ENIGMA_TEST_BACKEND=cuda ENIGMA_CLI="$PWD/build-gpu/enigma" python3 -m pytest -q -s -rs -p no:cacheprovider \
  tests/robust >"$OUT/robust-cuda.log" 2>&1 || rc=1
grep -E "cuda:|passed|failed|SKIPPED|Error" "$OUT/robust-cuda.log" | tail -n 25
exit $rc
