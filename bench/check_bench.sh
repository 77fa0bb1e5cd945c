#!/bin/sh
# check_bench.sh — builds bench/check_bench.c against a build folder's static library and
# runs it: checked mode's cost on a 2^20-element reduction (see check_bench.c).
#   sh bench/check_bench.sh [BUILD_DIR]      (default: build)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cc -std=gnu11 -O2 -DENIGMA_SOURCE_DIR="\"$root\"" -I"$root/include" "$root/bench/check_bench.c" \
  "$build/libenigma.a" -lpthread -ldl -lm -o "$build/check_bench"
exec "$build/check_bench"
