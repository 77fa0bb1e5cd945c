#!/bin/sh
# valgrind.sh — the C test suite under valgrind's memcheck: every ctest program (and the
# enigma CLI the golden tests drive) runs under valgrind; any error or definite leak fails.
# Kernels are compiled for AVX2 (scripts/cc-portable.sh), which valgrind decodes.
#   sh scripts/valgrind.sh [CTEST_REGEX]
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh test
build=build-vg
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build $build -j "$(nproc)" >/dev/null
export ENIGMA_CC="$PWD/scripts/cc-portable.sh" ENIGMA_CACHE_DIR="$PWD/$build/kernel-cache"
vg="valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
--trace-children=yes --trace-children-skip=*/cc-portable.sh,*/cmake,*/sh,*/bash,*/dash,*/diff,*/cc,*/gcc,*/clang,*/cc1,*/as,*/ld,*/collect2,*/python3*,*/cmp \
--suppressions=$PWD/scripts/valgrind.supp -q"
cd $build
# ctest -T memcheck reads its checker from DartConfiguration.tcl (written by include(CTest),
# which the project does not need otherwise)
cat > DartConfiguration.tcl <<EOT
MemoryCheckCommand: $(command -v valgrind)
MemoryCheckCommandOptions: $(echo "$vg" | cut -d' ' -f2-)
EOT
ctest -j "$(nproc)" --timeout 1200 ${1:+-R "$1"} -E "^(cuda\.files|cli\.install)$" -T memcheck 2>&1 | tail -n 30
