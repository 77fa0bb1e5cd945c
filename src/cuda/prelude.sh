#!/bin/sh
# prelude.sh — regenerates prelude.c (a C string) from prelude.cuh (the CUDA text every
# generated kernel starts with). Run after editing prelude.cuh:  sh src/cuda/prelude.sh
# tests/cuda checks that the two agree.
cd "$(dirname "$0")"
{
  echo "/* prelude.c — GENERATED from prelude.cuh by prelude.sh; edit prelude.cuh, then run it."
  echo " * The CUDA text that opens every kernel emit.c writes: Metal's types and built-ins. */"
  echo '#include "internal.h"'
  echo ''
  echo 'const char en_cuda_prelude[] ='
  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n"/' prelude.cuh
  echo '    ;'
} > prelude.c.tmp && mv prelude.c.tmp prelude.c
