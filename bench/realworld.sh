#!/bin/sh
# realworld.sh [BUILD] — compile time of the real-world kernel libraries (issue 10), from
# ../shared/realworld: each file through the front end (--emit ir), then built for the cpu
# backend and through NVRTC (cuda, no GPU needed) kernel by kernel, cold (an empty cache)
# and again from the cache. Prints one line per measurement; bench/RESULTS.md keeps them.
#   sh bench/realworld.sh build            ggml whole, MLX files that compile
#   ENIGMA_REALWORLD=/path sh bench/realworld.sh build
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
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
# every MLX file that compiles whole (tests/realworld/test_compile_all.py's MLX_COMPILING), with
# the function constants its host sets
for f in arange arg_reduce binary copy dot layer_norm logsumexp random reduce rms_norm rope searchsorted sort \
         scaled_dot_product_attention softmax steel_gemm_splitk steel_conv steel_conv_3d ternary unary; do
  c=""
  case $f in
    layer_norm|rms_norm) c="--constant has_w=true" ;;
    rope) c="--constant forward=true --constant traditional=false --constant hs_transpose=false" ;;
    scaled_dot_product_attention) c="--constant has_mask=false --constant query_transposed=false \
      --constant do_causal=false --constant bool_mask=false --constant float_mask=false \
      --constant has_sinks=false --constant blocks=4" ;;
  esac
  src=$(find "$R/mlx/mlx/backend/metal/kernels" -name "$f.metal" | head -n 1)
  # shellcheck disable=SC2086
  measure "mlx $f.metal front end" "$E" compile "$src" -I "$R/mlx" $c --emit ir -o /dev/null
  # shellcheck disable=SC2086
  measure "mlx $f.metal cuda/NVRTC, cold" "$E" compile "$src" -I "$R/mlx" $c --backend cuda -j "$jobs"
  # shellcheck disable=SC2086
  measure "mlx $f.metal cpu, cold" "$E" compile "$src" -I "$R/mlx" $c --backend cpu -j "$jobs"
  # shellcheck disable=SC2086
  measure "mlx $f.metal cpu, from the cache" "$E" compile "$src" -I "$R/mlx" $c --backend cpu -j "$jobs"
done
