#!/bin/sh
# run.sh — builds the front-end fuzzer (fuzz_front.c) with clang's libFuzzer, ASan and
# UBSan, then:
#   run.sh replay SECONDS   replays fuzz/regress/ and fuzz/corpus/, then fuzzes for
#                           SECONDS (what CI runs; new inputs go to fuzz/corpus-work/)
#   run.sh long SECONDS     one long fuzzing job (-jobs=1 -workers=1); crashes, timeouts
#                           and leaks land in fuzz/corpus-work/findings/, the log in fuzz/corpus-work/
# Limits for every run: 1 s per input, 2 GiB, inputs up to 4096 bytes.
set -eu
cd "$(dirname "$0")/.."
mode=${1:-replay}
seconds=${2:-60}
sh scripts/deps.sh fuzz

out=build-fuzz
mkdir -p "$out"
# the whole front end and what en_compile runs; no backend, no runtime objects
sources="src/base/*.c src/front/*.c src/ir/*.c src/pass/*.c src/runtime/compile.c"
# shellcheck disable=SC2086
clang -g -O1 -std=c11 -D_GNU_SOURCE -Isrc -Iinclude \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
  -o "$out/fuzz_front" fuzz/fuzz_front.c $sources -lm -ldl -lpthread

limits="-timeout=1 -rss_limit_mb=2048 -max_len=4096 -dict=fuzz/msl.dict"
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

case $mode in
replay)
  # every regression input once: a crash, leak or timeout fails the run
  if ls fuzz/regress/* >/dev/null 2>&1; then
    "$out/fuzz_front" $limits -runs=1 fuzz/regress/*
  fi
  mkdir -p fuzz/corpus-work/new fuzz/corpus-work/findings
  # -runs=0 over the corpus replays it; then a time-boxed run that may add to corpus-work
  "$out/fuzz_front" $limits -runs=0 fuzz/corpus
  "$out/fuzz_front" $limits -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix=fuzz/corpus-work/findings/ fuzz/corpus-work/new fuzz/corpus
  echo "fuzz: replay and ${seconds}s of fuzzing passed"
  ;;
long)
  mkdir -p fuzz/corpus-work/new fuzz/corpus-work/findings
  "$out/fuzz_front" $limits -max_total_time="$seconds" -print_final_stats=1 \
    -jobs=1 -workers=1 -artifact_prefix=fuzz/corpus-work/findings/ fuzz/corpus-work/new fuzz/corpus \
    > fuzz/corpus-work/long.log 2>&1 || true
  # with -jobs libFuzzer writes the job's own output to fuzz-0.log
  [ -f fuzz-0.log ] && mv fuzz-0.log fuzz/corpus-work/fuzz-0.log
  tail -n 30 fuzz/corpus-work/fuzz-0.log 2>/dev/null || tail -n 30 fuzz/corpus-work/long.log
  ls fuzz/corpus-work/findings
  ;;
*)
  echo "usage: fuzz/run.sh replay|long SECONDS" >&2
  exit 2
  ;;
esac
