#!/bin/sh
# run.sh BUILD — runs the CPU benchmark from the repository root and prints its table.
# The figures go into bench/RESULTS.md by hand, with the date, machine and this command.
set -e
build=${1:-build}
cd "$(dirname "$0")/.."
# the GEMM baseline is OpenBLAS sgemm: Debian's libopenblas-dev, installed when missing
if ! ls /usr/lib/*/libopenblas.so >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then apt-get install -y libopenblas-dev; else sudo apt-get install -y libopenblas-dev; fi
    cmake "$build" >/dev/null # find_library runs again
fi
cmake --build "$build" --target cpu_bench
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
"$build"/bench/cpu_bench bench/kernels
