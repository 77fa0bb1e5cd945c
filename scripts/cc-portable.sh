#!/bin/sh
# cc-portable.sh — a C compiler for kernels that valgrind can run: the CPU backend's
# default -march=native may emit AVX-512, which valgrind does not decode. The last -march
# on a gcc/clang command line wins, so this one caps the kernels at AVX2.
#   ENIGMA_CC=scripts/cc-portable.sh enigma run ...
exec "${ENIGMA_CC_REAL:-cc}" "$@" -march=x86-64-v3
