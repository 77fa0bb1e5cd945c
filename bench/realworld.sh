#!/bin/sh
# realworld.sh [BUILD] — compile time of the real-world kernel libraries (issue 10), from
# ../shared/realworld: each file through the front end (--emit ir), then built for the cpu
# backend and through NVRTC (cuda, no GPU needed) kernel by kernel, cold (an empty cache)
# and again from the cache. Prints one line per measurement; bench/RESULTS.md keeps them.
#   sh bench/realworld.sh build            ggml whole, MLX files that compile
#   sh bench/realworld.sh build mlx        only MLX (or ggml: only ggml)
#   ENIGMA_REALWORLD=/path sh bench/realworld.sh build
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
what=${2:-all}
E=$PWD/$build/enigma
R=${ENIGMA_REALWORLD:-$PWD/../shared/realworld}
jobs=$(nproc 2>/dev/null || echo 2)
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export ENIGMA_CACHE_DIR="$cache"

now() { date +%s.%N; }
# measure LABEL COMMAND...: wall seconds and the command's last line
measure() {
  label=$1; shift
  t0=$(now)
  out=$("$@" 2>/dev/null | tail -n 1)
  t1=$(now)
  printf '%-46s %8.2f s   %s\n' "$label" "$(awk "BEGIN { print $t1 - $t0 }")" "$out"
}

consts=""
while read -r line; do
  case $line in ''|'#'*) ;; *) consts="$consts --constant $line" ;; esac
done < tests/realworld/ggml_constants.txt
G="$R/ggml/src/ggml-metal/ggml-metal.metal -I $R/ggml/src -I $R/ggml/src/ggml-metal -DGGML_METAL_HAS_BF16 $consts"
echo "machine: $(nproc) cores; builds run $jobs at a time"
if [ "$what" != mlx ]; then
# shellcheck disable=SC2086
measure "ggml-metal.metal front end (689 kernels)" "$E" compile $G --emit ir -o /dev/null
# shellcheck disable=SC2086
measure "ggml-metal.metal cuda/NVRTC, cold" "$E" compile $G --backend cuda -j "$jobs"
# shellcheck disable=SC2086
measure "ggml-metal.metal cuda/NVRTC, from the cache" "$E" compile $G --backend cuda -j "$jobs"
# shellcheck disable=SC2086
measure "ggml-metal.metal cpu, cold" "$E" compile $G --backend cpu -j "$jobs"
# shellcheck disable=SC2086
measure "ggml-metal.metal cpu, from the cache" "$E" compile $G --backend cpu -j "$jobs"
fi
# every MLX file that compiles whole, with the function constants its host sets
# (tests/realworld/mlx_files.txt, which tests/realworld/test_compile_all.py keeps true)
[ "$what" = ggml ] && exit 0
grep -v '^#' tests/realworld/mlx_files.txt | while read -r f rest; do
  [ -n "$f" ] || continue
  c=""
  for kv in $rest; do c="$c --constant $kv"; done
  src=$(find "$R/mlx/mlx/backend/metal/kernels" -name "$f" | head -n 1)
  # shellcheck disable=SC2086
  measure "mlx $f front end" "$E" compile "$src" -I "$R/mlx" $c --emit ir -o /dev/null
  # shellcheck disable=SC2086
  measure "mlx $f cuda/NVRTC, cold" "$E" compile "$src" -I "$R/mlx" $c --backend cuda -j "$jobs"
  # shellcheck disable=SC2086
  measure "mlx $f cpu, cold" "$E" compile "$src" -I "$R/mlx" $c --backend cpu -j "$jobs"
  # shellcheck disable=SC2086
  measure "mlx $f cpu, from the cache" "$E" compile "$src" -I "$R/mlx" $c --backend cpu -j "$jobs"
done
