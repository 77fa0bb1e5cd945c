#!/bin/sh
# run.sh — builds the libFuzzer targets with clang, ASan and UBSan, then fuzzes them:
#   front   fuzz_front.c   the whole front end (en_compile) on one .metal file
#   npy     fuzz_npy.c     the CLI's .npy reader
#   values  fuzz_values.c  the CLI's typed number parser (x=1.5,2,3)
#   bind    fuzz_bind.c    binding parameters by name and by index (the C API)
#   worker  fuzz_worker.c  the CUDA worker's request reader (remote_protocol.h), stub driver
# Modes:
#   run.sh replay SECONDS        every target: replays fuzz/regress/TARGET and its corpus,
#                                then fuzzes (front for SECONDS, the others for 10 s each);
#                                what CI runs; new inputs go to fuzz/corpus-work/TARGET/
#   run.sh long SECONDS [TARGET] one long job per target (all at once when no TARGET);
#                                findings in fuzz/corpus-work/TARGET/findings/, logs beside them
# Limits for every run: 1 s per input, 2 GiB, inputs up to 4096 bytes. Corpora:
# fuzz/corpus (front, seeded with the test kernels) and fuzz/corpus-TARGET.
set -eu
cd "$(dirname "$0")/.."
mode=${1:-replay}
seconds=${2:-60}
only=${3:-}
sh scripts/deps.sh fuzz

out=build-fuzz
mkdir -p "$out"
# EN_PP_EXPANSION_FLOOR: the preprocessor's expansion budget 16x smaller (src/front/pp.c)
flags="-g -O1 -std=c11 -D_GNU_SOURCE -Isrc -Iinclude -Itools -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -fno-omit-frame-pointer -DEN_PP_EXPANSION_FLOOR=65536"
front_sources="src/base/*.c src/front/*.c src/ir/*.c src/pass/*.c src/runtime/compile.c"
all_sources="src/base/*.c src/front/*.c src/ir/*.c src/pass/*.c src/cpu/*.c src/cuda/*.c src/runtime/*.c"
# shellcheck disable=SC2086
build() { # build TARGET SOURCES...
  t=$1; shift
  clang $flags -o "$out/fuzz_$t" "fuzz/fuzz_$t.c" "$@" -lm -ldl -lpthread
}
# shellcheck disable=SC2086
{
  build front $front_sources
  build npy tools/npy.c
  build values tools/cli_values.c tools/npy.c
  build bind $all_sources
  build worker src/cuda/worker.c src/cuda/remote_io.c src/cuda/dl.c src/base/*.c
}

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
corpus() { [ "$1" = front ] && echo fuzz/corpus || echo "fuzz/corpus-$1"; }
limits() {
  l="-timeout=1 -rss_limit_mb=2048 -max_len=4096"
  [ "$1" = front ] && l="$l -dict=fuzz/msl.dict"
  echo "$l"
}
targets="front npy values bind worker"
[ -n "$only" ] && targets=$only

case $mode in
replay)
  for t in $targets; do
    c=$(corpus "$t")
    w=fuzz/corpus-work/$t
    mkdir -p "$w/new" "$w/findings" "$c"
    # every regression input once: a crash, leak or timeout fails the run
    if ls "fuzz/regress/$t"/* >/dev/null 2>&1; then
      "$out/fuzz_$t" $(limits "$t") -runs=1 "fuzz/regress/$t"/*
    fi
    "$out/fuzz_$t" $(limits "$t") -runs=0 "$c"
    s=10; [ "$t" = front ] && s=$seconds
    "$out/fuzz_$t" $(limits "$t") -max_total_time="$s" -print_final_stats=1 \
      -artifact_prefix="$w/findings/" "$w/new" "$c"
    echo "fuzz $t: replay and ${s}s of fuzzing passed"
  done
  ;;
long)
  pids=""
  for t in $targets; do
    c=$(corpus "$t")
    w=fuzz/corpus-work/$t
    mkdir -p "$w/new" "$w/findings" "$c"
    (cd "$w" && nice -n 19 "../../../$out/fuzz_$t" $(cd ../../.. && limits "$t" | sed 's#fuzz/#../../../fuzz/#') \
        -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix=findings/ \
        new "../../../$c" > long.log 2>&1 || true) &
    pids="$pids $!"
  done
  # shellcheck disable=SC2086
  wait $pids
  for t in $targets; do
    echo "== $t"; tail -n 12 "fuzz/corpus-work/$t/long.log"; ls "fuzz/corpus-work/$t/findings"
  done
  ;;
*)
  echo "usage: fuzz/run.sh replay|long SECONDS [front|npy|values|bind|worker]" >&2
  exit 2
  ;;
esac
