"""threadgroup_barrier and threadgroup memory (Metal spec, "Synchronization functions",
"threadgroup address space"): barriers in loops and uniform branches, values that live
across barriers, threads that return early (they no longer take part, as on Apple
silicon), static and dynamic ([[threadgroup(n)]]) threadgroup memory."""
import numpy as np
import pytest

from semharness import close, exact, floats, garbage, ints

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"

TREE_SRC = HEADER + """
kernel void k(device const float* x [[buffer(0)]], device float* sums [[buffer(1)]],
              uint lid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]],
              uint gid [[thread_position_in_grid]], uint size [[threads_per_threadgroup]]) {
    threadgroup float tile[256];
    tile[lid] = x[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint stride = size / 2; stride > 0; stride /= 2) {
        if (lid < stride) tile[lid] += tile[lid + stride];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (lid == 0) sums[group] = tile[0];
}
"""


@pytest.mark.parametrize("tg", [32, 128, 256])
def test_tree_reduction_barrier_in_loop(tg, run, rng):
    groups = 9
    x = floats(rng, groups * tg, -1, 1)
    out = run(TREE_SRC, {"x": x, "sums": garbage(rng, groups)}, ["sums"], threadgroups=groups, threads=tg)["sums"]
    close(out, x.astype(np.float64).reshape(groups, tg).sum(axis=1), rtol=1e-5, atol=1e-5, what="tree sums")


EARLY_RETURN_SRC = HEADER + """
kernel void k(device const int* x [[buffer(0)]], device int* out [[buffer(1)]],
              constant uint& n [[buffer(2)]],
              uint lid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]],
              uint group [[threadgroup_position_in_grid]]) {
    if (gid >= n) return;              // the returned threads take no part in the barriers
    threadgroup int tile[64];
    tile[lid] = x[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    int live = int(min(64u, n - group * 64u));
    int s = 0;
    for (int i = 0; i < live; i++) s += tile[i] * (i + 1);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    tile[live - 1 - int(lid)] = s + int(lid);   // reversed, among the threads still here
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[gid] = tile[lid];
}
"""


def test_early_return_before_barriers(run, rng):
    groups, n = 6, 6 * 64 - 37
    x = ints(rng, groups * 64, -1000, 1000)
    out0 = garbage(rng, groups * 64, np.int32)
    out = run(EARLY_RETURN_SRC, {"x": x, "out": out0, "n": str(n)}, ["out"],
              threadgroups=groups, threads=64)["out"]
    want = out0.copy()   # threads past n write nothing; their slots keep what was there
    for g in range(groups):
        live = min(64, n - g * 64)
        tile = x[g * 64:g * 64 + live].astype(np.int64)
        s = int((tile * np.arange(1, live + 1)).sum())
        for lid in range(live):
            want[g * 64 + lid] = s + (live - 1 - lid)
    exact(out, want, "reversed per-group weighted sums among the live threads")


SURVIVORS_SRC = HEADER + """
kernel void k(device const float* x [[buffer(0)]], device float* out [[buffer(1)]],
              uint lid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]]) {
    threadgroup float tile[126];
    float mine = x[gid];                 // lives across every barrier below
    tile[lid] = mine;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float left = tile[(lid + 125) % 126];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid % 3 == 1) {                  // a third of the threads leave here
        out[gid] = left - mine;
        return;
    }
    tile[lid] = left * 2.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);   // only the survivors take part
    out[gid] = tile[lid] + mine + tile[(lid + 3) % 126];   // a survivor's slot: same lid % 3
}
"""


def test_threads_leave_between_barriers(run, rng):
    groups, tg = 5, 126
    x = floats(rng, groups * tg, -10, 10)
    out = run(SURVIVORS_SRC, {"x": x, "out": garbage(rng, groups * tg)}, ["out"], threadgroups=groups, threads=tg)["out"]
    t = x.astype(np.float64).reshape(groups, tg)
    left = np.roll(t, 1, axis=1)
    lid = np.arange(tg)
    want = 2 * left + t + 2 * np.roll(left, -3, axis=1)
    want[:, lid % 3 == 1] = (left - t)[:, lid % 3 == 1]
    close(out, want.reshape(-1), rtol=1e-6, atol=1e-5, what="values across barriers with returned threads")


STENCIL_SRC = HEADER + """
kernel void k(device float* x [[buffer(0)]], constant int& steps [[buffer(1)]],
              uint lid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]],
              uint size [[threads_per_threadgroup]]) {
    threadgroup float cur[96];
    float v = x[gid];
    for (int s = 0; s < steps; s++) {
        cur[lid] = v;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        float l = lid > 0 ? cur[lid - 1] : cur[lid];
        float r = lid + 1 < size ? cur[lid + 1] : cur[lid];
        v = (l + 2.0f * v + r) * 0.25f;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        if (s % 2 == 1) {              // a uniform branch with its own barrier
            cur[size - 1 - lid] = v;
            threadgroup_barrier(mem_flags::mem_threadgroup);
            v = 0.5f * (v + cur[lid]);
            threadgroup_barrier(mem_flags::mem_threadgroup);
        }
    }
    x[gid] = v;
}
"""


def test_stencil_barriers_in_loop_and_uniform_branch(run, rng):
    groups, tg = 4, 96
    steps = int(rng.integers(3, 9))
    x = floats(rng, groups * tg, -5, 5)
    out = run(STENCIL_SRC, {"x": x, "steps": str(steps)}, ["x"], threadgroups=groups, threads=tg)["x"]
    v = x.astype(np.float64).reshape(groups, tg)
    for s in range(steps):
        l = np.concatenate([v[:, :1], v[:, :-1]], axis=1)
        r = np.concatenate([v[:, 1:], v[:, -1:]], axis=1)
        v = (l + 2 * v + r) * 0.25
        if s % 2 == 1:
            v = 0.5 * (v + v[:, ::-1])
    close(out, v.reshape(-1), rtol=1e-5, atol=1e-5, what=f"stencil, {steps} steps")


DYNAMIC_SRC = HEADER + """
kernel void k(device const float* x [[buffer(0)]], device float* out [[buffer(1)]],
              threadgroup float* a [[threadgroup(0)]], threadgroup int* b [[threadgroup(1)]],
              uint lid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]],
              uint size [[threads_per_threadgroup]]) {
    a[lid] = x[gid];
    b[lid] = int(lid) * 3;
    b[size + lid] = -int(lid);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[gid] = a[size - 1 - lid] + float(b[(lid + 1) % size]) + float(b[size + (lid + 2) % size]);
}
"""


def test_dynamic_threadgroup_memory(run, rng):
    groups, tg = 7, 48
    x = floats(rng, groups * tg, -3, 3)
    out = run(DYNAMIC_SRC, {"x": x, "out": garbage(rng, groups * tg)}, ["out"], threadgroups=groups, threads=tg,
              tgmem={0: tg * 4, 1: 2 * tg * 4})["out"]
    lid = np.arange(tg)
    want = x.reshape(groups, tg)[:, ::-1] + 3 * ((lid + 1) % tg) - ((lid + 2) % tg)
    close(out, want.reshape(-1), rtol=1e-6, atol=1e-5, what="dynamic threadgroup memory")


PRIVATE_ARRAY_SRC = HEADER + """
kernel void k(device const int* x [[buffer(0)]], device int* out [[buffer(1)]],
              uint lid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]]) {
    threadgroup int shared_vals[32];
    threadgroup int limit;
    if (lid == 0) limit = x[gid - lid] > 5000 ? 0 : 100;   // never 0: inputs are small
    int mine[4];                          // a private array alive across the barriers
    for (int i = 0; i < 4; i++) mine[i] = x[gid] * (i + 1);
    int acc = 0;
    for (int round = 0; round < 4; round++) {
        shared_vals[lid] = mine[round];
        threadgroup_barrier(mem_flags::mem_threadgroup);
        acc += shared_vals[31 - lid];
        threadgroup_barrier(mem_flags::mem_threadgroup);
        if (round > limit) break;         // a uniform exit test (read from threadgroup memory)
    }
    out[gid] = acc + mine[3];
}
"""


def test_private_array_lives_across_barriers(run, rng):
    groups = 6
    x = ints(rng, groups * 32, -100, 100)
    out = run(PRIVATE_ARRAY_SRC, {"x": x, "out": garbage(rng, groups * 32, np.int32)}, ["out"],
              threadgroups=groups, threads=32)["out"]
    xs = x.reshape(groups, 32).astype(np.int64)
    want = xs[:, ::-1] * 10 + xs * 4
    exact(out, want.reshape(-1).astype(np.int32), "private arrays across barriers")


MULTI_2D_SRC = HEADER + """
kernel void k(device const float* a [[buffer(0)]], device const float* b [[buffer(1)]],
              device float* c [[buffer(2)]], constant uint& n [[buffer(3)]],
              uint2 gid [[thread_position_in_grid]], uint2 lid [[thread_position_in_threadgroup]]) {
    // a threadgroup-tiled matrix product, 8x8 tiles: barriers inside a loop over tiles
    threadgroup float ta[8][8];
    threadgroup float tb[8][8];
    float acc = 0.0f;
    for (uint t = 0; t < n / 8; t++) {
        ta[lid.y][lid.x] = a[gid.y * n + t * 8 + lid.x];
        tb[lid.y][lid.x] = b[(t * 8 + lid.y) * n + gid.x];
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint k = 0; k < 8; k++) acc += ta[lid.y][k] * tb[k][lid.x];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    c[gid.y * n + gid.x] = acc;
}
"""


def test_tiled_matmul_2d_threadgroups(run, rng):
    n = 40
    a = floats(rng, (n, n), -1, 1)
    b = floats(rng, (n, n), -1, 1)
    out = run(MULTI_2D_SRC, {"a": a, "b": b, "c": garbage(rng, (n, n)), "n": str(n)}, ["c"],
              threadgroups=(n // 8, n // 8), threads=(8, 8))["c"]
    close(out, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5, what="tiled matmul")


SIMD_BARRIER_SRC = HEADER + """
kernel void k(device const int* x [[buffer(0)]], device int* out [[buffer(1)]],
              uint lid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]],
              uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    threadgroup int tile[64];
    tile[lid] = x[gid];
    simdgroup_barrier(mem_flags::mem_threadgroup);   // orders the SIMD group's own writes
    out[gid] = tile[sg * 32 + (31 - lane)] - tile[lid];
}
"""


def test_simdgroup_barrier(run, rng):
    groups = 4
    x = ints(rng, groups * 64, -1000, 1000)
    out = run(SIMD_BARRIER_SRC, {"x": x, "out": garbage(rng, groups * 64, np.int32)}, ["out"],
              threadgroups=groups, threads=64)["out"]
    xs = x.reshape(groups, 2, 32)
    exact(out, (xs[:, :, ::-1] - xs).reshape(-1), "simdgroup_barrier exchange")
