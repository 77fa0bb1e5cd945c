#!/bin/sh
# realworld.sh [BUILD [WHAT [BACKENDS [FILE...]]]] — compile time of the real-world kernel
# libraries (issue 10), from ../shared/realworld: each file through the front end (--emit ir),
# then every kernel built for the cpu backend and through NVRTC (cuda, no GPU needed), in
# batches (enigma compile's default), cold (an empty cache) and again from the cache. Prints
# one line per measurement and, for MLX, the totals per stage; bench/RESULTS.md keeps them.
#   sh bench/realworld.sh build                  ggml whole, then every MLX file that compiles
#   sh bench/realworld.sh build mlx              only MLX (ggml: only ggml)
#   sh bench/realworld.sh build mlx cuda         only NVRTC (cpu: only the C compiler; both)
#   sh bench/realworld.sh build mlx both unary.metal binary.metal    only these MLX files
#   sh bench/realworld.sh build mlx cpu small    MLX files by the cpu build's cost (small,
#                                                medium, large): bench/RESULTS.md estimates them
#   ENIGMA_BATCH=1 sh bench/realworld.sh ...     each kernel alone (the build before batches)
#   ENIGMA_REALWORLD=/path sh bench/realworld.sh build
#   ERRORS=FILE sh bench/realworld.sh ...        keep the builds' diagnostics (which kernel
#                                                failed and why) in FILE; else dropped
#   KERNELS=FILE sh bench/realworld.sh ...       only the MLX kernels FILE names (a host name a
#                                                line), e.g. the part of a file another machine
#                                                did not build
#   CACHE=DIR sh bench/realworld.sh ...          build into the cache DIR and keep it (else
#                                                a fresh one, removed at the end): a build
#                                                cut short resumes there, no longer cold
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
what=${2:-all}
backends=${3:-both}
[ $# -gt 3 ] && shift 3 || set --
# the MLX files by the CPU time of their cpu build, estimated from the size of their C
# (bench/RESULTS.md): about 3,500, 8,000 and 65,000 CPU seconds
case ${1:-} in
  small) set -- arange.metal arg_reduce.metal binary.metal binary_two.metal conv.metal dot.metal layer_norm.metal \
           logsumexp.metal random.metal rms_norm.metal rope.metal scaled_dot_product_attention.metal \
           searchsorted.metal softmax.metal steel_attention.metal steel_conv_3d.metal steel_conv_general.metal \
           steel_gemm_gather.metal ternary.metal unary.metal ;;
  medium) set -- copy.metal gemv.metal gemv_masked.metal scan.metal sort.metal steel_conv.metal \
            steel_gemm_fused.metal steel_gemm_segmented.metal ;;
  large) set -- fp_quantized.metal quantized.metal reduce.metal steel_gemm_masked.metal steel_gemm_splitk.metal ;;
esac
E=$PWD/$build/enigma
R=${ENIGMA_REALWORLD:-$PWD/../shared/realworld}
[ -d "$R" ] || R=/work/shared/realworld
jobs=$(nproc 2>/dev/null || echo 2)
batch=${ENIGMA_BATCH:+--batch $ENIGMA_BATCH}
totals=$(mktemp)
if [ -n "${CACHE:-}" ]; then
  mkdir -p "$CACHE" && cache=$(cd "$CACHE" && pwd)
  trap 'rm -f "$totals"' EXIT
else
  cache=$(mktemp -d)
  trap 'rm -rf "$cache" "$totals"' EXIT
fi
export ENIGMA_CACHE_DIR="$cache"

now() { date +%s.%N; }
# measure STAGE LABEL COMMAND...: wall seconds and the command's last line; the seconds and
# "N of M kernels" are added to the totals of STAGE
measure() {
  stage=$1 label=$2; shift 2
  t0=$(now)
  out=$("$@" 2>>"${ERRORS:-/dev/null}" | tail -n 1)
  t1=$(now)
  s=$(awk "BEGIN { print $t1 - $t0 }")
  printf '%-50s %8.2f s   %s\n' "$label" "$s" "$out"
  counts=$(echo "$out" | sed -n 's/.*: \([0-9]*\) of \([0-9]*\) kernels\{0,1\} built.*/\1 \2/p')
  echo "$stage $s ${counts:-0 0}" >> "$totals"
}
wants() { [ "$backends" = both ] || [ "$backends" = "$1" ]; }

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); builds run $jobs at a time${batch:+; $batch}${CACHE:+; cache $cache, kept}"
consts=""
while read -r line; do
  case $line in ''|'#'*) ;; *) consts="$consts --constant $line" ;; esac
done < tests/realworld/ggml_constants.txt
G="$R/ggml/src/ggml-metal/ggml-metal.metal -I $R/ggml/src -I $R/ggml/src/ggml-metal -DGGML_METAL_HAS_BF16 $consts"
if [ "$what" != mlx ]; then
  # shellcheck disable=SC2086
  measure ggml-front "ggml-metal.metal front end (689 kernels)" "$E" compile $G --emit ir -o /dev/null
  for b in cuda cpu; do
    wants $b || continue
    # shellcheck disable=SC2086
    measure ggml-$b-cold "ggml-metal.metal $b, cold" "$E" compile $G --backend $b -j "$jobs" $batch
    # shellcheck disable=SC2086
    measure ggml-$b-warm "ggml-metal.metal $b, from the cache" "$E" compile $G --backend $b -j "$jobs" $batch
  done
fi
[ "$what" = ggml ] && exit 0

# every MLX file that compiles whole, with the function constants its host sets
# (tests/realworld/mlx_files.txt, which tests/realworld/test_compile_all.py keeps true);
# every kernel named with -k, so that a file of 16 kernels or fewer prints its count too
t_mlx=$(now)
grep -v '^#' tests/realworld/mlx_files.txt | while read -r f rest; do
  [ -n "$f" ] || continue
  if [ $# -gt 0 ]; then
    case " $* " in *" $f "*) ;; *) continue ;; esac
  fi
  c=""
  for kv in $rest; do c="$c --constant $kv"; done
  src=$(find "$R/mlx/mlx/backend/metal/kernels" -name "$f" | head -n 1)
  # shellcheck disable=SC2086
  ks=$("$E" compile "$src" -I "$R/mlx" $c --emit ir 2>/dev/null | sed -n 's/^kernel void \([A-Za-z0-9_]*\)(.*/\1/p')
  [ -n "${KERNELS:-}" ] && ks=$(echo "$ks" | grep -x -F -f "$KERNELS")
  ks=$(echo "$ks" | sed -n 's/^\(.\)/-k \1/p')
  [ -n "$ks" ] || continue
  # shellcheck disable=SC2086
  measure mlx-front "mlx $f front end" "$E" compile "$src" -I "$R/mlx" $c --emit ir -o /dev/null
  for b in cuda cpu; do
    wants $b || continue
    # shellcheck disable=SC2086
    measure mlx-$b-cold "mlx $f $b, cold" "$E" compile "$src" -I "$R/mlx" $c --backend $b -j "$jobs" $batch $ks
    # shellcheck disable=SC2086
    measure mlx-$b-warm "mlx $f $b, from the cache" "$E" compile "$src" -I "$R/mlx" $c --backend $b -j "$jobs" $batch $ks
  done
done
echo "MLX totals ($(awk "BEGIN { printf \"%.1f\", $(now) - $t_mlx }") s in all):"
awk '$1 ~ /^mlx/ { s[$1] += $2; b[$1] += $3; n[$1] += $4 }
     END { for (k in s) printf "  %-16s %9.2f s   %d of %d kernels built\n", k, s[k], b[k], n[k] }' "$totals" | sort
