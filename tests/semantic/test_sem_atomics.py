"""Atomics (Metal spec, "Atomic functions"; relaxed order only), contended by every thread
of many threadgroups at once, in device and threadgroup memory. Results are checked
exactly, including that the values each thread saw form one valid serial order."""
import numpy as np
import pytest

from semharness import close, exact, garbage, ints, floats

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"
GROUPS, TG = 48, 64
N = GROUPS * TG

FETCH_ADD_SRC = HEADER + """
kernel void k(device atomic_uint* counter [[buffer(0)]], device const uint* x [[buffer(1)]],
              device uint* old [[buffer(2)]], uint gid [[thread_position_in_grid]]) {
    old[gid] = atomic_fetch_add_explicit(counter, x[gid], memory_order_relaxed);
}
"""


def test_fetch_add_contended_is_one_serial_order(run, rng):
    x = ints(rng, N, 1, 1000, dtype=np.uint32)
    start = np.array([int(rng.integers(1, 1 << 20))], dtype=np.uint32)
    r = run(FETCH_ADD_SRC, {"counter": start, "x": x, "old": garbage(rng, N, np.uint32)}, ["counter", "old"],
            threadgroups=GROUPS, threads=TG)
    total = int(start[0]) + int(x.astype(np.int64).sum())
    exact(r["counter"], np.array([total & 0xFFFFFFFF], np.uint32), "final counter")
    # every thread saw a distinct old value; sorted, each is the previous plus its thread's x
    order = np.argsort(r["old"].astype(np.int64), kind="stable")
    olds = r["old"].astype(np.int64)[order]
    steps = x.astype(np.int64)[order]
    assert olds[0] == start[0], f"first old value {olds[0]}, expected the initial {start[0]}"
    bad = np.nonzero(olds[1:] != olds[:-1] + steps[:-1])[0]
    assert len(bad) == 0, f"old values are not one serial order of the adds (first break at {bad[:5]})"


MINMAX_SRC = HEADER + """
kernel void k(device atomic_int* imin [[buffer(0)]], device atomic_int* imax [[buffer(1)]],
              device atomic_uint* umin [[buffer(2)]], device atomic_uint* umax [[buffer(3)]],
              device atomic_uint* bits [[buffer(4)]],
              device const int* x [[buffer(5)]], device const uint* u [[buffer(6)]],
              uint gid [[thread_position_in_grid]]) {
    atomic_fetch_min_explicit(imin, x[gid], memory_order_relaxed);
    atomic_fetch_max_explicit(imax, x[gid], memory_order_relaxed);
    atomic_fetch_min_explicit(umin, u[gid], memory_order_relaxed);
    atomic_fetch_max_explicit(umax, u[gid], memory_order_relaxed);
    atomic_fetch_and_explicit(&bits[0], u[gid] | 0x00ff00ffu, memory_order_relaxed);
    atomic_fetch_or_explicit(&bits[1], u[gid] & 0x11111111u, memory_order_relaxed);
    atomic_fetch_xor_explicit(&bits[2], u[gid], memory_order_relaxed);
    atomic_fetch_sub_explicit(&bits[3], u[gid] & 0xffu, memory_order_relaxed);
}
"""


def test_min_max_and_or_xor_sub_contended(run, rng):
    x = ints(rng, N, -(1 << 31), 1 << 31)
    u = ints(rng, N, 1, 1 << 32, dtype=np.int64).astype(np.uint32)
    init = [np.array([v], dt) for v, dt in [(int(rng.integers(-1000, 1000)) or 3, np.int32),
                                           (int(rng.integers(-1000, 1000)) or 3, np.int32),
                                           (int(rng.integers(1, 1 << 31)), np.uint32),
                                           (int(rng.integers(1, 1 << 31)), np.uint32)]]
    bits = ints(rng, 4, 1, 1 << 32, dtype=np.int64).astype(np.uint32)
    r = run(MINMAX_SRC, {"imin": init[0], "imax": init[1], "umin": init[2], "umax": init[3], "bits": bits,
                         "x": x, "u": u}, ["imin", "imax", "umin", "umax", "bits"], threadgroups=GROUPS, threads=TG)
    exact(r["imin"], np.array([min(int(init[0][0]), int(x.min()))], np.int32), "atomic int min")
    exact(r["imax"], np.array([max(int(init[1][0]), int(x.max()))], np.int32), "atomic int max")
    exact(r["umin"], np.array([min(int(init[2][0]), int(u.min()))], np.uint32), "atomic uint min")
    exact(r["umax"], np.array([max(int(init[3][0]), int(u.max()))], np.uint32), "atomic uint max")
    a, o, e, s = (int(v) for v in bits)
    for v in map(int, u):
        a &= v | 0x00FF00FF
        o |= v & 0x11111111
        e ^= v
        s = (s - (v & 0xFF)) & 0xFFFFFFFF
    exact(r["bits"], np.array([a, o, e, s], np.uint32), "atomic and/or/xor/sub")


EXCHANGE_SRC = HEADER + """
kernel void k(device atomic_int* slot [[buffer(0)]], device const int* x [[buffer(1)]],
              device int* old [[buffer(2)]], uint gid [[thread_position_in_grid]]) {
    old[gid] = atomic_exchange_explicit(slot, x[gid], memory_order_relaxed);
}
"""


def test_exchange_contended_loses_nothing(run, rng):
    x = rng.permutation(np.arange(1, N + 1, dtype=np.int32)) * 3
    start = np.array([-7], np.int32)
    r = run(EXCHANGE_SRC, {"slot": start, "x": x, "old": garbage(rng, N, np.int32)}, ["slot", "old"],
            threadgroups=GROUPS, threads=TG)
    seen = np.sort(np.concatenate([r["old"], r["slot"]]))
    exact(seen, np.sort(np.concatenate([x, start])), "exchanged values (olds and the final value)")


CAS_SRC = HEADER + """
kernel void k(device atomic_uint* sum [[buffer(0)]], device atomic_int* best [[buffer(1)]],
              device const uint* x [[buffer(2)]], device uint* tries [[buffer(3)]],
              uint gid [[thread_position_in_grid]]) {
    // an add built from compare-and-swap: retry until no other thread got in between
    uint expected = atomic_load_explicit(sum, memory_order_relaxed);
    uint n = 0;
    while (!atomic_compare_exchange_weak_explicit(sum, &expected, expected + x[gid],
                                                  memory_order_relaxed, memory_order_relaxed)) {
        n++;
    }
    tries[gid] = n;
    // a float max through the integer bits (valid for non-negative floats)
    float f = float(x[gid]) * 0.25f;
    int cur = atomic_load_explicit(best, memory_order_relaxed);
    while (as_type<float>(cur) < f &&
           !atomic_compare_exchange_weak_explicit(best, &cur, as_type<int>(f),
                                                  memory_order_relaxed, memory_order_relaxed)) {
    }
}
"""


def test_compare_exchange_loops(run, rng):
    x = ints(rng, N, 1, 100000, dtype=np.uint32)
    start = np.array([int(rng.integers(1, 1000))], np.uint32)
    best0 = np.array([1.5], np.float32).view(np.int32)
    r = run(CAS_SRC, {"sum": start, "best": best0, "x": x, "tries": garbage(rng, N, np.uint32)},
            ["sum", "best"], threadgroups=GROUPS, threads=TG)
    exact(r["sum"], np.array([int(start[0]) + int(x.astype(np.int64).sum())], np.uint32), "CAS add")
    exact(r["best"].view(np.float32), np.array([max(1.5, float(x.max()) * 0.25)], np.float32), "CAS float max")


FLOAT_ADD_SRC = HEADER + """
kernel void k(device atomic_float* total [[buffer(0)]], device const float* x [[buffer(1)]],
              uint gid [[thread_position_in_grid]]) {
    atomic_fetch_add_explicit(&total[gid % 4], x[gid], memory_order_relaxed);
    atomic_fetch_sub_explicit(&total[4], x[gid] * 0.5f, memory_order_relaxed);
}
"""


def test_atomic_float_add_sub(run, rng):
    x = floats(rng, N, 0.5, 2)
    start = floats(rng, 5, 1, 10)
    out = run(FLOAT_ADD_SRC, {"total": start, "x": x}, ["total"], threadgroups=GROUPS, threads=TG)["total"]
    xs = x.astype(np.float64)
    want = [start[k] + xs[k::4].sum() for k in range(4)] + [start[4] - (xs * 0.5).sum()]
    close(out, np.array(want), rtol=1e-5, atol=1e-3, what="atomic_float add/sub (any order)")


HISTOGRAM_SRC = HEADER + """
kernel void k(device const uint* x [[buffer(0)]], device uint* hist [[buffer(1)]],
              device atomic_uint* global_hist [[buffer(2)]],
              uint lid [[thread_index_in_threadgroup]], uint group [[threadgroup_position_in_grid]],
              uint gid [[thread_position_in_grid]]) {
    threadgroup atomic_uint bins[16];
    if (lid < 16) atomic_store_explicit(&bins[lid], 0u, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint b = x[gid] % 16u;
    atomic_fetch_add_explicit(&bins[b], 1u, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid < 16) {
        uint c = atomic_load_explicit(&bins[lid], memory_order_relaxed);
        hist[group * 16 + lid] = c;
        atomic_fetch_add_explicit(&global_hist[lid], c, memory_order_relaxed);
    }
}
"""


def test_threadgroup_atomics_histogram(run, rng):
    x = ints(rng, N, 1, 1 << 30, dtype=np.uint32)
    g0 = ints(rng, 16, 1, 1000, dtype=np.uint32)
    r = run(HISTOGRAM_SRC, {"x": x, "hist": garbage(rng, GROUPS * 16, np.uint32), "global_hist": g0},
            ["hist", "global_hist"], threadgroups=GROUPS, threads=TG)
    per = np.stack([np.bincount(x[g * TG:(g + 1) * TG] % 16, minlength=16) for g in range(GROUPS)])
    exact(r["hist"].reshape(GROUPS, 16), per.astype(np.uint32), "per-threadgroup histogram")
    exact(r["global_hist"], (g0 + per.sum(axis=0)).astype(np.uint32), "device histogram")


ULONG_SRC = HEADER + """
kernel void k(device atomic_ulong* m [[buffer(0)]], device const ulong* x [[buffer(1)]],
              uint gid [[thread_position_in_grid]]) {
    atomic_fetch_max_explicit(&m[0], x[gid], memory_order_relaxed);
    atomic_fetch_min_explicit(&m[1], x[gid], memory_order_relaxed);
}
"""


def test_atomic_ulong_min_max(run, rng):
    x = rng.integers(1, 1 << 63, N, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    m0 = np.array([1 << 40, (1 << 64) - 5], dtype=np.uint64)
    out = run(ULONG_SRC, {"m": m0, "x": x}, ["m"], threadgroups=GROUPS, threads=TG)["m"]
    exact(out, np.array([max(int(m0[0]), int(x.max())), min(int(m0[1]), int(x.min()))], np.uint64),
          "atomic_ulong max/min")
