#!/bin/sh
# demo.sh BUILD_DIR — `make demo`: runs seed 004's two-stage reduction
# (examples/seed004_two_stage_reduction.metal) on the CPU backend through the enigma CLI,
# on fresh random inputs, and prints each threadgroup's sum beside a reference computed
# here in double precision (awk). Exits 1 if they disagree beyond float rounding.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
enigma="$build/enigma"
[ -x "$enigma" ] || { echo "demo: $enigma is not built (run: make)"; exit 1; }

n=1000
threads=128
groups=$(( (n + threads - 1) / threads ))
values=$(awk -v n=$n 'BEGIN { srand(); for (i = 0; i < n; i++) printf "%s%.6f", (i ? "," : ""), rand() * 2 - 1 }')

echo "enigma run examples/seed004_two_stage_reduction.metal --backend cpu --threadgroups $groups --threads $threads \\"
echo "    data=<$n random floats in [-1, 1)> count=$n sums=zeros:$groups --print sums:$groups"
out=$("$enigma" run examples/seed004_two_stage_reduction.metal --backend cpu \
        --threadgroups $groups --threads $threads \
        data="$values" count=$n sums=zeros:$groups --print sums:$groups --time)
echo "$out" | grep -E "^(compile|dispatch):" || true
got=$(echo "$out" | sed -n 's/^sums = \[\(.*\)\]$/\1/p')
[ -n "$got" ] || { echo "demo: no sums in the output:"; echo "$out"; exit 1; }

echo
echo "$values" | awk -v got="$got" -v n=$n -v t=$threads -v g=$groups '
BEGIN { FS = "," }
{
    for (i = 1; i <= n; i++) { ref[int((i - 1) / t)] += $i; mag[int((i - 1) / t)] += ($i < 0 ? -$i : $i) }
    split(got, v, ", ")
    printf "%-12s %16s %20s\n", "threadgroup", "enigma (float)", "reference (double)"
    bad = 0; total = 0; rtotal = 0
    for (k = 0; k < g; k++) {
        e = v[k + 1] - ref[k]; if (e < 0) e = -e
        ok = e <= 1e-5 * mag[k] + 1e-6
        printf "%-12d %16.7f %20.10f %s\n", k, v[k + 1], ref[k], ok ? "" : "  MISMATCH"
        if (!ok) bad++
        total += v[k + 1]; rtotal += ref[k]
    }
    printf "%-12s %16.7f %20.10f\n", "total", total, rtotal
    if (bad) { printf "demo: %d threadgroup sums disagree with the reference\n", bad; exit 1 }
    print "demo: every threadgroup sum matches the reference"
}'
