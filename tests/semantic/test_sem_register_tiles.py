"""Barrier-free kernels whose loops are the same in every thread (the cpu backend's register
tiles, src/cpu/emit_tile.c, take them when the group is 16k wide and 4k high): what they
compute, for group shapes the tiles take (8 and 4 rows), partial groups at the grid's edge
and shapes they leave to the region code (widths that are not a multiple of 16), against
NumPy. On the cpu backend each test also checks, from `enigma compile --emit c`, that the
kernel is (or is not) in the tiles' class, so a change that silently drops the tiles fails
here too."""
import re
import subprocess

import numpy as np
import pytest

import semharness
from semharness import close, exact, floats, garbage, ints

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"


def tiled(tmp_path, src):
    """does the cpu backend's C for src run register tiles?"""
    path = tmp_path / "tile_probe.metal"
    path.write_text(src)
    r = subprocess.run([str(semharness.cli_path()), "compile", str(path), "--emit", "c"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return re.search(r"register tiles \(emit_tile\.c\): \d+ rows", r.stdout) is not None


# seed 002's naive GEMM, batched over z: A per-row load (a broadcast), B's row slice one
# vector load shared by the rows, the accumulator a vector per row
GEMM_SRC = HEADER + """
kernel void k(device const float* A [[buffer(0)]], device const float* B [[buffer(1)]],
              device float* C [[buffer(2)]], constant uint& K [[buffer(3)]],
              constant uint& N [[buffer(4)]], constant uint& M [[buffer(5)]],
              uint3 pos [[thread_position_in_grid]]) {
    uint row = pos.y, col = pos.x;
    uint a0 = pos.z * M * K, b0 = pos.z * K * N;
    float acc = 0.0f;
    for (uint k = 0; k < K; k++)
        acc = fma(A[a0 + row * K + k], B[b0 + k * N + col], acc);
    C[pos.z * M * N + row * N + col] = acc;
}
"""


@pytest.mark.parametrize("threads,M,N,Z", [
    ((16, 8, 1), 48, 64, 1),    # whole groups, eight rows per tile
    ((16, 4, 1), 36, 48, 2),    # four rows per tile (height 4), two batches
    ((32, 8, 1), 40, 96, 1),    # two tiles across a row of the group
    ((16, 8, 1), 43, 75, 2),    # partial groups at the right and bottom edges: region code
    ((8, 8, 1), 24, 40, 1),     # a width the tiles do not take: region code
])
def test_naive_gemm(run, rng, tmp_path, threads, M, N, Z):
    if semharness.backend() == "cpu":
        assert tiled(tmp_path, GEMM_SRC)
    K = int(rng.integers(5, 70))
    a = floats(rng, Z * M * K, -1, 1)
    b = floats(rng, Z * K * N, -1, 1)
    out = run(GEMM_SRC, {"A": a, "B": b, "C": garbage(rng, Z * M * N), "K": str(K), "N": str(N), "M": str(M)},
              ["C"], grid=(N, M, Z), threads=threads)["C"]
    want = np.einsum("zmk,zkn->zmn", a.astype(np.float64).reshape(Z, M, K), b.astype(np.float64).reshape(Z, K, N))
    close(out, want.reshape(-1), rtol=1e-5, atol=1e-5, what=f"C = A x B, K = {K}")


# integers and floats, every shape: a per-column int load of step 1 (a vector), a per-row
# load (a scalar per row), a load of step 2 (the exact per-thread loads), a uniform counter
# stepped in the body, two per-thread values, attributes of the group and of the thread, a
# local computed from another before the loop assigns that one
MIXED_SRC = HEADER + """
kernel void k(device const int* X [[buffer(0)]], device const float* W [[buffer(1)]],
              device int* out_i [[buffer(2)]], device float* out_f [[buffer(3)]],
              constant uint& n [[buffer(4)]], constant int& shift [[buffer(5)]],
              uint2 gid [[thread_position_in_grid]], uint2 lid [[thread_position_in_threadgroup]],
              uint2 tpg [[threads_per_grid]]) {
    uint width = tpg.x;
    int s = int(lid.x) - 3;
    float f = 1.0f;
    int j = 0;
    int base = j + 2 * int(gid.y);   // reads j before the loop changes it
    for (uint k = 0; k < n; k += 2) {
        s = s + X[k * width + gid.x] * (int(gid.y) - shift) - X[gid.y * n + k] + base;
        f = f * 0.5f + W[2 * gid.x + k];
        j = j + 3;
    }
    out_i[gid.y * width + gid.x] = s + j;
    out_f[gid.y * width + gid.x] = f - float(lid.y);
}
"""


@pytest.mark.parametrize("threads,H,Wd", [((16, 8), 16, 32), ((16, 4), 12, 48), ((16, 8), 13, 40), ((4, 4), 8, 8)])
def test_mixed_shapes(run, rng, tmp_path, threads, H, Wd):
    if semharness.backend() == "cpu":
        assert tiled(tmp_path, MIXED_SRC)
    n = int(rng.integers(3, 30))
    shift = int(rng.integers(-5, 5))
    x = ints(rng, max(n * Wd, H * n) + 1, -50, 50)
    w = floats(rng, 2 * Wd + n + 1, -1, 1)
    got = run(MIXED_SRC, {"X": x, "W": w, "out_i": garbage(rng, H * Wd, np.int32),
                          "out_f": garbage(rng, H * Wd), "n": str(n), "shift": str(shift)},
              ["out_i", "out_f"], grid=(Wd, H), threads=threads)
    want_i = np.zeros((H, Wd), np.int64)
    want_f = np.zeros((H, Wd), np.float64)
    xs = x.astype(np.int64)
    for y in range(H):
        for c in range(Wd):
            s, f, j = c % threads[0] - 3, np.float32(1.0), 0
            for k in range(0, n, 2):
                s += xs[k * Wd + c] * (y - shift) - xs[y * n + k] + 2 * y
                f = np.float32(f * np.float32(0.5) + w[2 * c + k])
                j += 3
            want_i[y, c] = s + j
            want_f[y, c] = float(f) - y % threads[1]
    exact(got["out_i"], want_i.reshape(-1).astype(np.int32), "integer sums")
    close(got["out_f"], want_f.reshape(-1), rtol=1e-5, atol=1e-5, what="float recurrence")


# the trip count differs per thread: not the tiles' class (the region code runs it)
DIVERGENT_SRC = HEADER + """
kernel void k(device const float* A [[buffer(0)]], device float* out [[buffer(1)]],
              constant uint& n [[buffer(2)]], uint2 pos [[thread_position_in_grid]],
              uint2 size [[threads_per_grid]]) {
    float acc = 0.0f;
    for (uint k = 0; k < n + (pos.x & 3u); k++)
        acc = fma(A[k * size.x + pos.x], 0.5f, acc);
    out[pos.y * size.x + pos.x] = acc;
}
"""


def test_per_thread_trip_count_is_not_tiled(run, rng, tmp_path):
    if semharness.backend() == "cpu":
        assert not tiled(tmp_path, DIVERGENT_SRC)
    n, H, Wd = int(rng.integers(2, 20)), 8, 32
    a = floats(rng, (n + 3) * Wd, -1, 1)
    out = run(DIVERGENT_SRC, {"A": a, "out": garbage(rng, H * Wd), "n": str(n)}, ["out"],
              grid=(Wd, H), threads=(16, 8))["out"]
    want = np.zeros((H, Wd))
    for c in range(Wd):
        want[:, c] = sum(0.5 * float(a[k * Wd + c]) for k in range(n + (c & 3)))
    close(out, want.reshape(-1), rtol=1e-5, atol=1e-5, what="per-thread trip counts")


# a k loop stepped by 2 whose column load moves with k (B's rows: prefetched 16 steps, 32
# rows, on) and one whose column load does not (C's row: no prefetch); computed as well
STEPPED_SRC = HEADER + """
kernel void k(device const float* B [[buffer(0)]], device const float* C [[buffer(1)]],
              device float* out [[buffer(2)]], constant uint& K [[buffer(3)]],
              uint2 pos [[thread_position_in_grid]], uint2 size [[threads_per_grid]]) {
    float acc = 0.0f;
    for (uint k = 0; k < K; k += 2)
        acc = fma(B[k * size.x + pos.x], float(pos.y + 1u), acc);
    for (uint j = 0; j < K; j++)
        acc += C[pos.x] * 0.25f;
    out[pos.y * size.x + pos.x] = acc;
}
"""


def test_stepped_loop_prefetches(run, rng, tmp_path):
    if semharness.backend() == "cpu":
        path = tmp_path / "stepped.metal"
        path.write_text(STEPPED_SRC)
        c = subprocess.run([str(semharness.cli_path()), "compile", str(path), "--emit", "c"],
                           capture_output=True, text=True, timeout=600)
        assert c.returncode == 0, c.stderr
        assert tiled(tmp_path, STEPPED_SRC)
        tiles = c.stdout[c.stdout.index("register tiles (emit_tile.c)"):]
        ahead = re.findall(r"__builtin_prefetch\(\(const void \*\)\(\(uintptr_t\)B_0 \+ .*\+ 32u\)", tiles)
        assert len(ahead) == 2, "one prefetch of B 16 steps (32 rows) on in each of the two tile blocks"
        assert "(uintptr_t)C_1" not in tiles, "a load that does not move with the counter is not prefetched"
    K, H, Wd = int(rng.integers(3, 40)), 8, 32
    b = floats(rng, (K + 1) * Wd, -1, 1)
    cc = floats(rng, Wd, -1, 1)
    out = run(STEPPED_SRC, {"B": b, "C": cc, "out": garbage(rng, H * Wd), "K": str(K)}, ["out"],
              grid=(Wd, H), threads=(16, 8))["out"]
    want = np.zeros((H, Wd))
    for r in range(H):
        for c in range(Wd):
            acc = sum(float(b[k * Wd + c]) * (r + 1) for k in range(0, K, 2))
            want[r, c] = acc + K * float(cc[c]) * 0.25
    close(out, want.reshape(-1), rtol=1e-5, atol=1e-5, what="a stepped k loop")
