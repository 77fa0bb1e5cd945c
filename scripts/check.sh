#!/bin/sh
# check.sh — the whole test suite, as `make check` and CI run it:
#   1. release build + ctest      2. ASan+UBSan build + ctest
#   3. Python tests (pytest)      4. fuzz corpus replay and a short fuzz run
# Ends with one line CI reads: "check: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
sh scripts/deps.sh test || { echo "check: dependencies could not be installed"; echo "0 passed, 1 failed"; exit 1; }

jobs=$(nproc 2>/dev/null || echo 2)
passed=0; failed=0
log=$(mktemp -d)

# adds ctest's "N tests failed out of M" from log $1 to the totals
count_ctest() {
  line=$(grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" "$1" | tail -n 1)
  if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
  f=$(echo "$line" | sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/')
  t=$(echo "$line" | sed -E 's/.* failed out of ([0-9]+).*/\1/')
  passed=$((passed + t - f)); failed=$((failed + f))
}

suite() { # suite NAME BUILD_DIR CMAKE_ARGS...
  name=$1; dir=$2; shift 2
  echo "== $name"
  if ! { cmake -S . -B "$dir" -G Ninja "$@" >"$log/$name.configure" 2>&1 &&
         cmake --build "$dir" -j "$jobs" >"$log/$name.build" 2>&1; }; then
    cat "$log/$name.configure" "$log/$name.build" | tail -n 60
    echo "$name: build failed"; failed=$((failed + 1)); return
  fi
  (cd "$dir" && ctest -j "$jobs" --output-on-failure --timeout 600) >"$log/$name.test" 2>&1
  grep -E "^(ctest|[0-9]+% tests|Total Test time)|\*\*\*Failed|Failed|Timeout" "$log/$name.test" | tail -n 40
  count_ctest "$log/$name.test"
}

suite release build -DCMAKE_BUILD_TYPE=RelWithDebInfo
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  suite asan build-asan -DCMAKE_BUILD_TYPE=Debug -DENIGMA_SANITIZE=ON

# Python-driven suites: the package's own tests and the kernel suites run through the CLI.
# Each folder runs in its own pytest process: their conftest modules share a name.
for d in python/tests tests/semantic tests/cli tests/check tests/pip tests/robust tests/realworld; do
  ls $d/test_*.py >/dev/null 2>&1 || continue
  name=$(echo "$d" | tr / _)
  echo "== pytest $d"
  ENIGMA_LIBRARY="$PWD/build/libenigma.so" ENIGMA_CLI="$PWD/build/enigma" PYTHONPATH="$PWD/python" \
    python3 -m pytest -q -p no:cacheprovider "$d" >"$log/$name.test" 2>&1
  tail -n 12 "$log/$name.test"
  last=$(grep -E "[0-9]+ (passed|failed|errors?)" "$log/$name.test" | tail -n 1)
  p=$(echo "$last" | grep -oE "[0-9]+ passed" | grep -oE "[0-9]+")
  f=$(echo "$last" | grep -oE "[0-9]+ (failed|errors?)" | awk '{s+=$1} END {print s+0}')
  [ -z "$p" ] && p=0; [ -z "$f" ] && f=0
  [ "$p" = 0 ] && [ "$f" = 0 ] && f=1
  passed=$((passed + p)); failed=$((failed + f))
done

if [ -x fuzz/run.sh ]; then
  echo "== fuzz"
  if sh fuzz/run.sh replay 60 >"$log/fuzz.log" 2>&1; then passed=$((passed + 1)); else
    tail -n 40 "$log/fuzz.log"; failed=$((failed + 1)); fi
  tail -n 3 "$log/fuzz.log"
fi

rm -rf "$log"
echo "check: $passed passed, $failed failed"
[ "$failed" = 0 ]
