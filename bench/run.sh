#!/bin/sh
# run.sh BUILD — runs the CPU benchmark from the repository root and prints its table.
# The figures go into bench/RESULTS.md by hand, with the date, machine and this command.
set -e
build=${1:-build}
cd "$(dirname "$0")/.."
cmake --build "$build" --target cpu_bench
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
"$build"/bench/cpu_bench bench/kernels
