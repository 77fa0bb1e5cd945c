#!/bin/sh
# fold.sh BASE NEW [FILE...] — what the fold pass (src/pass/fold.c, issue 10) saves: for each
# MLX file (default: fft, reduce, quantized, steel_gemm_masked), the C the cpu backend
# generates for all its kernels (--emit c) with two builds of enigma, the one before the pass
# (BASE, a build folder) and the one with it (NEW); then, with GCC_KERNELS="file:kernel ...",
# the cold cpu build of each of those kernels alone (an empty cache), BASE and NEW
# alternately, wall and CPU time (enigma and the gcc it runs); and the front end of ggml-metal.metal (--emit ir), three times each.
# bench/RESULTS.md keeps the figures.
#   sh bench/fold.sh /tmp/build-before build
#   GCC_KERNELS="fft.metal:fft_mem_256_float2_float2" sh bench/fold.sh /tmp/build-before build fft.metal
#   NO_SIZES=1 / NO_GGML=1 leave out the C sizes / the ggml front end
set -u
cd "$(dirname "$0")/.."
base=$1 new=$2
shift 2
[ $# -gt 0 ] || set -- fft.metal reduce.metal quantized.metal steel_gemm_masked.metal
R=${ENIGMA_REALWORLD:-/work/shared/realworld}
now() { date +%s.%N; }
mlx_args() { # FILE: the source path, -I and its function constants
  src=$(find "$R/mlx/mlx/backend/metal/kernels" -name "$1" | head -n 1)
  c=$(grep "^$1 " tests/realworld/mlx_files.txt | cut -d' ' -f2- | sed 's/\([^ ]*\)/--constant \1/g')
  echo "$src -I $R/mlx $c"
}
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for f in "$@"; do
  [ -z "${NO_SIZES:-}" ] || break
  # shellcheck disable=SC2046
  b=$("$base/enigma" compile $(mlx_args "$f") --emit c | wc -c)
  # shellcheck disable=SC2046
  n=$("$new/enigma" compile $(mlx_args "$f") --emit c | wc -c)
  awk -v f="$f" -v b="$b" -v n="$n" 'BEGIN { printf "%-28s C bytes, all kernels: %12d -> %11d  (%.1fx smaller)\n", f, b, n, b / n }'
done
for fk in ${GCC_KERNELS:-}; do
  f=${fk%%:*} k=${fk#*:}
  for e in "$base" "$new"; do
    cache=$(mktemp -d)
    bytes=$("$e/enigma" compile $(mlx_args "$f") -k "$k" --emit c | wc -c)
    cpu=$(mktemp)
    t0=$(now)
    # shellcheck disable=SC2046
    ENIGMA_CACHE_DIR=$cache /usr/bin/time -f "%U %S" -o "$cpu" "$e/enigma" compile $(mlx_args "$f") -k "$k" --backend cpu > /dev/null 2>&1
    rc=$?
    t1=$(now)
    rm -rf "$cache"
    awk -v k="$k" -v e="$e" -v b="$bytes" -v s="$(awk "BEGIN { print $t1 - $t0 }")" -v rc=$rc -v c="$(awk '{ print $1 + $2 }' "$cpu")" \
      'BEGIN { printf "%-40s %-22s C %9d bytes, cpu build %7.1f s wall, %7.1f s CPU (rc %d)\n", k, e, b, s, c, rc }'
    rm -f "$cpu"
  done
done
if [ -z "${NO_GGML:-}" ]; then
  consts=""
  while read -r line; do
    case $line in ''|'#'*) ;; *) consts="$consts --constant $line" ;; esac
  done < tests/realworld/ggml_constants.txt
  G="$R/ggml/src/ggml-metal/ggml-metal.metal -I $R/ggml/src -I $R/ggml/src/ggml-metal -DGGML_METAL_HAS_BF16 $consts"
  for i in 1 2 3; do
    for e in "$base" "$new"; do
      t0=$(now)
      # shellcheck disable=SC2086
      "$e/enigma" compile $G --emit ir -o /dev/null
      t1=$(now)
      awk -v e="$e" -v s="$(awk "BEGIN { print $t1 - $t0 }")" 'BEGIN { printf "ggml-metal.metal front end  %-22s %6.2f s\n", e, s }'
    done
  done
fi
