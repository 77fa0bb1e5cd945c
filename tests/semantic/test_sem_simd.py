"""SIMD-group and quad-group functions (Metal spec, "SIMD-group functions", "Quad-group
functions"): reductions, scans, shuffles, broadcasts and votes over the ACTIVE lanes,
in full and partial SIMD groups, in divergent branches and loops, and with out-of-range
source lanes (shuffle_up/down keep their own value, rotate wraps, and_fill fills).

The reference groups threads the way Metal does: a SIMD group is 32 consecutive threads
of the threadgroup's flattened index (the last one may be smaller), a quad 4."""
import numpy as np
import pytest

from semharness import close, exact, floats, garbage, ints

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"


def groups(n_threads, tg_size, width):
    """Lists of global indices, one per SIMD group (width 32) or quad (width 4)."""
    out = []
    for base in range(0, n_threads, tg_size):
        for start in range(0, tg_size, width):
            out.append(list(range(base + start, base + min(start + width, tg_size))))
    return out


REDUCE_SRC = HEADER + """
kernel void k(device const float* x [[buffer(0)]], device const uint* u [[buffer(1)]],
              device float4* f [[buffer(2)]], device uint4* b [[buffer(3)]],
              uint gid [[thread_position_in_grid]]) {
    float v = x[gid];
    uint w = u[gid];
    f[gid] = float4(PFX_sum(v), PFX_product(v), PFX_min(v), PFX_max(v));
    b[gid] = uint4(PFX_and(w), PFX_or(w), PFX_xor(w), uint(PFX_sum(int(w & 0xffffu) - 30000)));
}
"""


@pytest.mark.parametrize("family,width", [("simd", 32), ("quad", 4)])
def test_reductions_full_and_partial_groups(family, width, run, rng):
    tg, ngroups = 80, 3            # SIMD groups of 32, 32 and 16 threads
    n = tg * ngroups
    x = floats(rng, n, 0.9, 1.1)
    u = ints(rng, n, 1, 1 << 32, dtype=np.int64).astype(np.uint32)
    r = run(REDUCE_SRC.replace("PFX", family),
            {"x": x, "u": u, "f": garbage(rng, (n, 4)), "b": garbage(rng, (n, 4), np.uint32)},
            ["f", "b"], threadgroups=ngroups, threads=tg)
    wf = np.zeros((n, 4))
    wb = np.zeros((n, 4), dtype=np.int64)
    for g in groups(n, tg, width):
        xs = x[g].astype(np.float64)
        wf[g] = [xs.sum(), xs.prod(), xs.min(), xs.max()]
        us = [int(v) for v in u[g]]
        a, o, e = us[0], 0, 0
        for v in us:
            a &= v
            o |= v
            e ^= v
        s = sum((v & 0xFFFF) - 30000 for v in us) & 0xFFFFFFFF
        wb[g] = [a, o, e, s]
    close(r["f"], wf, rtol=2e-6, atol=1e-6, what=f"{family} sum/product/min/max")
    exact(r["b"], wb.astype(np.uint32), f"{family} and/or/xor/int sum")


SCAN_SRC = HEADER + """
kernel void k(device const float* x [[buffer(0)]], device const int* y [[buffer(1)]],
              device float4* f [[buffer(2)]], device int4* i [[buffer(3)]],
              uint gid [[thread_position_in_grid]]) {
    float v = x[gid];
    int w = y[gid];
    f[gid] = float4(PFX_prefix_inclusive_sum(v), PFX_prefix_exclusive_sum(v),
                    PFX_prefix_inclusive_product(v), PFX_prefix_exclusive_product(v));
    i[gid] = int4(PFX_prefix_inclusive_sum(w), PFX_prefix_exclusive_sum(w),
                  PFX_prefix_inclusive_product((w & 1) + 1), PFX_prefix_exclusive_product((w & 1) + 1));
}
"""


@pytest.mark.parametrize("family,width", [("simd", 32), ("quad", 4)])
def test_prefix_scans(family, width, run, rng):
    tg, ngroups = 72, 2
    n = tg * ngroups
    x = floats(rng, n, 0.8, 1.2)
    y = ints(rng, n, -1000, 1000)
    r = run(SCAN_SRC.replace("PFX", family),
            {"x": x, "y": y, "f": garbage(rng, (n, 4)), "i": garbage(rng, (n, 4), np.int32)},
            ["f", "i"], threadgroups=ngroups, threads=tg)
    wf = np.zeros((n, 4))
    wi = np.zeros((n, 4), dtype=np.int64)
    for g in groups(n, tg, width):
        s, p, si, pi = 0.0, 1.0, 0, 1
        for t in g:
            v, w = float(x[t]), int(y[t])
            wf[t, 1], wf[t, 3] = s, p
            wi[t, 1], wi[t, 3] = si, pi
            s, p, si, pi = s + v, p * v, si + w, pi * ((w & 1) + 1)
            wf[t, 0], wf[t, 2] = s, p
            wi[t, 0], wi[t, 2] = si, pi
    close(r["f"], wf, rtol=3e-6, atol=1e-6, what=f"{family} float scans")
    exact(r["i"], (wi & 0xFFFFFFFF).astype(np.uint32).view(np.int32).reshape(n, 4), f"{family} int scans")


SHUFFLE_SRC = HEADER + """
kernel void k(device const float* x [[buffer(0)]], device const float* fill [[buffer(1)]],
              device float* out [[buffer(2)]], uint gid [[thread_position_in_grid]],
              ushort lane [[thread_index_in_simdgroup]]) {
    float v = x[gid], f = fill[gid];
    device float* o = out + gid * 12;
    o[0] = simd_shuffle(v, ushort((lane * 7 + 3) % 32));
    o[1] = simd_shuffle_xor(v, ushort(5));
    o[2] = simd_shuffle_up(v, ushort(3));
    o[3] = simd_shuffle_down(v, ushort(5));
    o[4] = simd_shuffle_rotate_up(v, ushort(6));
    o[5] = simd_shuffle_rotate_down(v, ushort(9));
    o[6] = simd_broadcast(v, ushort(17));
    o[7] = simd_broadcast_first(v);
    o[8] = simd_shuffle_and_fill_up(v, f, ushort(4));
    o[9] = simd_shuffle_and_fill_down(v, f, ushort(7));
    o[10] = simd_shuffle_and_fill_up(v, f, ushort(3), ushort(8));
    o[11] = simd_shuffle_and_fill_down(v, f, ushort(2), ushort(16));
}
"""


def fill_up(data, fill, j, base, delta, mod):
    """Metal's *_shuffle_and_fill_up for lane base+j of a cluster of `mod` lanes."""
    return data[base + j - delta] if j >= delta else fill[base + j + mod - delta]


def fill_down(data, fill, j, base, delta, mod):
    return data[base + j + delta] if j + delta < mod else fill[base + j + delta - mod]


def test_simd_shuffles_and_out_of_range_lanes(run, rng):
    tg, ngroups = 64, 3
    n = tg * ngroups
    x = floats(rng, n, -10, 10)
    fill = floats(rng, n, 20, 30)
    out = run(SHUFFLE_SRC, {"x": x, "fill": fill, "out": garbage(rng, n * 12)}, ["out"],
              threadgroups=ngroups, threads=tg)["out"].reshape(n, 12)
    want = np.zeros((n, 12), dtype=np.float32)
    for g in groups(n, tg, 32):
        d, fl = x[g], fill[g]
        for j, t in enumerate(g):
            want[t, 0] = d[(j * 7 + 3) % 32]
            want[t, 1] = d[j ^ 5]
            want[t, 2] = d[j - 3] if j >= 3 else d[j]          # out of range: own value
            want[t, 3] = d[j + 5] if j + 5 < 32 else d[j]
            want[t, 4] = d[(j - 6) % 32]                       # rotates wrap
            want[t, 5] = d[(j + 9) % 32]
            want[t, 6] = d[17]
            want[t, 7] = d[0]
            want[t, 8] = fill_up(d, fl, j, 0, 4, 32)
            want[t, 9] = fill_down(d, fl, j, 0, 7, 32)
            want[t, 10] = fill_up(d, fl, j % 8, j - j % 8, 3, 8)
            want[t, 11] = fill_down(d, fl, j % 16, j - j % 16, 2, 16)
    names = ["shuffle", "shuffle_xor", "shuffle_up", "shuffle_down", "rotate_up", "rotate_down",
             "broadcast", "broadcast_first", "and_fill_up", "and_fill_down", "and_fill_up mod 8",
             "and_fill_down mod 16"]
    for c, name in enumerate(names):
        exact(out[:, c], want[:, c], f"simd_{name}")


QUAD_SHUFFLE_SRC = HEADER + """
kernel void k(device const int* x [[buffer(0)]], device const int* fill [[buffer(1)]],
              device int* out [[buffer(2)]], uint gid [[thread_position_in_grid]],
              ushort q [[thread_index_in_quadgroup]]) {
    int v = x[gid], f = fill[gid];
    device int* o = out + gid * 10;
    o[0] = quad_shuffle(v, ushort(3 - q));
    o[1] = quad_shuffle_xor(v, ushort(2));
    o[2] = quad_shuffle_up(v, ushort(1));
    o[3] = quad_shuffle_down(v, ushort(3));
    o[4] = quad_shuffle_rotate_up(v, ushort(1));
    o[5] = quad_shuffle_rotate_down(v, ushort(3));
    o[6] = quad_broadcast(v, ushort(2));
    o[7] = quad_broadcast_first(v);
    o[8] = quad_shuffle_and_fill_up(v, f, ushort(1));
    o[9] = quad_shuffle_and_fill_down(v, f, ushort(2));
}
"""


def test_quad_shuffles_and_out_of_range_lanes(run, rng):
    tg, ngroups = 40, 2
    n = tg * ngroups
    x = ints(rng, n, -(1 << 30), 1 << 30)
    fill = ints(rng, n, -(1 << 30), 1 << 30)
    out = run(QUAD_SHUFFLE_SRC, {"x": x, "fill": fill, "out": garbage(rng, n * 10, np.int32)}, ["out"],
              threadgroups=ngroups, threads=tg)["out"].reshape(n, 10)
    want = np.zeros((n, 10), dtype=np.int32)
    for g in groups(n, tg, 4):
        d, fl = x[g], fill[g]
        for j, t in enumerate(g):
            want[t] = [d[3 - j], d[j ^ 2], d[j - 1] if j >= 1 else d[j], d[j + 3] if j + 3 < 4 else d[j],
                       d[(j - 1) % 4], d[(j + 3) % 4], d[2], d[0],
                       fill_up(d, fl, j, 0, 1, 4), fill_down(d, fl, j, 0, 2, 4)]
    names = ["shuffle", "shuffle_xor", "shuffle_up", "shuffle_down", "rotate_up", "rotate_down",
             "broadcast", "broadcast_first", "and_fill_up", "and_fill_down"]
    for c, name in enumerate(names):
        exact(out[:, c], want[:, c], f"quad_{name}")


DIVERGENT_SRC = HEADER + """
kernel void k(device const float* x [[buffer(0)]], device const uint* pred [[buffer(1)]],
              device float4* f [[buffer(2)]], device uint4* v [[buffer(3)]],
              uint gid [[thread_position_in_grid]]) {
    float a = x[gid];
    float4 r = float4(-1.0f);
    uint4 w = uint4(7u);
    if (pred[gid] % 3u != 0u) {
        r = float4(simd_sum(a), simd_prefix_inclusive_sum(a), simd_prefix_exclusive_sum(a),
                   simd_broadcast_first(a));
        simd_vote vote = simd_ballot(a > 0.0f);
        simd_vote active = simd_active_threads_mask();
        w.x = uint(simd_vote::vote_t(vote));
        w.y = uint(simd_vote::vote_t(active));
        w.z = (simd_all(a > -50.0f) ? 1u : 0u) | (simd_any(a > 4.0f) ? 2u : 0u) |
              (simd_is_first() ? 4u : 0u);
        w.w = uint(simd_max(int(a * 100.0f)));
    } else {
        r.x = simd_min(a);
        w.x = uint(simd_prefix_exclusive_sum(1));
    }
    f[gid] = r;
    v[gid] = w;
}
"""


def test_divergent_branches_use_active_lanes(run, rng):
    tg, ngroups = 64, 4
    n = tg * ngroups
    x = floats(rng, n, -5, 5)
    pred = ints(rng, n, 1, 1 << 20, dtype=np.uint32)
    r = run(DIVERGENT_SRC, {"x": x, "pred": pred, "f": garbage(rng, (n, 4)), "v": garbage(rng, (n, 4), np.uint32)},
            ["f", "v"], threadgroups=ngroups, threads=tg)
    wf = np.full((n, 4), -1.0)
    wv = np.full((n, 4), 7, dtype=np.int64)
    for g in groups(n, tg, 32):
        on = [t for t in g if pred[t] % 3 != 0]
        off = [t for t in g if pred[t] % 3 == 0]
        xs = {t: float(x[t]) for t in g}
        vote = sum(1 << (t - g[0]) for t in on if xs[t] > 0)
        mask = sum(1 << (t - g[0]) for t in on)
        allv = all(xs[t] > -50 for t in on)
        anyv = any(xs[t] > 4 for t in on)
        mx = max(int(np.float32(xs[t]) * np.float32(100)) for t in on) if on else 0
        s = 0.0
        for k, t in enumerate(on):
            wf[t] = [sum(xs[u] for u in on), s + xs[t], s, xs[on[0]]]
            s += xs[t]
            wv[t] = [vote, mask, (1 if allv else 0) | (2 if anyv else 0) | (4 if k == 0 else 0), mx & 0xFFFFFFFF]
        for k, t in enumerate(off):
            wf[t, 0] = min(xs[u] for u in off)
            wv[t, 0] = k
    close(r["f"], wf, rtol=2e-6, atol=2e-6, what="divergent simd sum/scans/broadcast_first")
    exact(r["v"], wv.astype(np.uint32), "divergent ballot/active mask/all/any/is_first/max")


LOOP_SRC = HEADER + """
kernel void k(device const int* x [[buffer(0)]], device int* out [[buffer(1)]],
              device int* quad_out [[buffer(2)]], uint gid [[thread_position_in_grid]],
              uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
    int acc = 0, qacc = 0;
    // lanes leave the loop at different iterations: each call sees fewer active lanes
    for (int i = 0; i < x[gid]; i++) {
        acc += simd_sum(1) * 1000 + simd_prefix_exclusive_sum(1);
        qacc += quad_sum(i);
    }
    // seed 004's pattern: a collective under a compound condition
    int total = -5;
    if (sg == 0 && lane < 4) {
        total = simd_sum(x[gid]);
    }
    out[gid] = acc * 7 + total;
    quad_out[gid] = qacc;
}
"""


def test_collectives_in_divergent_loops(run, rng):
    tg, ngroups = 96, 2
    n = tg * ngroups
    x = ints(rng, n, 1, 9)
    r = run(LOOP_SRC, {"x": x, "out": garbage(rng, n, np.int32), "quad_out": garbage(rng, n, np.int32)},
            ["out", "quad_out"], threadgroups=ngroups, threads=tg)
    want = np.zeros(n, dtype=np.int64)
    wq = np.zeros(n, dtype=np.int64)
    for g in groups(n, tg, 32):
        for i in range(int(x.max())):
            act = [t for t in g if x[t] > i]
            for k, t in enumerate(act):
                want[t] += len(act) * 1000 + k
        for t in g:
            lane = t - g[0]
            first = (t % tg) < 32
            total = sum(int(x[u]) for u in g[:4]) if first and lane < 4 else -5
            want[t] = want[t] * 7 + total
    for q in groups(n, tg, 4):
        for i in range(int(x.max())):
            act = [t for t in q if x[t] > i]
            for t in act:
                wq[t] += i * len(act)
    exact(r["out"], want.astype(np.int32), "simd_sum/prefix in a divergent loop; seed 004 pattern")
    exact(r["quad_out"], wq.astype(np.int32), "quad_sum in a divergent loop")


QUAD_VOTE_SRC = HEADER + """
kernel void k(device const float* x [[buffer(0)]], device uint* out [[buffer(1)]],
              uint gid [[thread_position_in_grid]]) {
    float a = x[gid];
    uint r = 99u;
    if (a > -3.0f) {
        quad_vote v = quad_ballot(a > 0.0f);
        quad_vote m = quad_active_threads_mask();
        r = uint(quad_vote::vote_t(v)) | (uint(quad_vote::vote_t(m)) << 4) |
            (quad_all(a > -2.0f) ? 256u : 0u) | (quad_any(a > 2.0f) ? 512u : 0u) |
            (quad_is_first() ? 1024u : 0u);
    }
    out[gid] = r;
}
"""


def test_quad_votes_in_divergent_branch(run, rng):
    tg, ngroups = 32, 3
    n = tg * ngroups
    x = floats(rng, n, -4, 4)
    out = run(QUAD_VOTE_SRC, {"x": x, "out": garbage(rng, n, np.uint32)}, ["out"],
              threadgroups=ngroups, threads=tg)["out"]
    want = np.full(n, 99, dtype=np.int64)
    for q in groups(n, tg, 4):
        on = [t for t in q if x[t] > -3]
        vote = sum(1 << (t - q[0]) for t in on if x[t] > 0)
        mask = sum(1 << (t - q[0]) for t in on)
        a = all(x[t] > -2 for t in on)
        y = any(x[t] > 2 for t in on)
        for k, t in enumerate(on):
            want[t] = vote | mask << 4 | (256 if a else 0) | (512 if y else 0) | (1024 if k == 0 else 0)
    exact(out, want.astype(np.uint32), "quad_ballot/active mask/all/any/is_first")


VECTOR_SIMD_SRC = HEADER + """
kernel void k(device const float4* x [[buffer(0)]], device const half2* h [[buffer(1)]],
              device float4* out [[buffer(2)]], device half2* hout [[buffer(3)]],
              uint gid [[thread_position_in_grid]]) {
    out[gid] = simd_sum(x[gid]) + simd_shuffle_down(x[gid], ushort(1));
    hout[gid] = simd_max(h[gid]);
}
"""


def test_simd_functions_on_vectors_and_half(run, rng):
    tg, ngroups = 32, 4
    n = tg * ngroups
    x = floats(rng, (n, 4), -3, 3)
    h = floats(rng, (n, 2), -100, 100, dtype=np.float16)
    r = run(VECTOR_SIMD_SRC, {"x": x, "h": h, "out": garbage(rng, (n, 4)), "hout": garbage(rng, (n, 2), np.float16)},
            ["out", "hout"], threadgroups=ngroups, threads=tg)
    want = np.zeros((n, 4))
    wh = np.zeros((n, 2), dtype=np.float16)
    for g in groups(n, tg, 32):
        s = x[g].astype(np.float64).sum(axis=0)
        for j, t in enumerate(g):
            want[t] = s + (x[g[j + 1]] if j + 1 < 32 else x[t])
        wh[g] = h[g].max(axis=0)
    # a float32 sum of 32 terms in any order is exact to about sqrt(32) * 2^-24 of the sum of
    # their magnitudes (up to 96 here): 2e-6 absolute was too tight for some draws
    close(r["out"], want, rtol=2e-6, atol=4 * np.sqrt(32) * 2.0 ** -24 * 96, what="simd_sum/shuffle_down of float4")
    exact(r["hout"], wh, "simd_max of half2")


# -- the lanes of a SIMD group run in lock step, statement by statement: every lane's loads
# of a statement come before any lane's stores of it, and a statement's stores before the
# next statement's loads. Kernels pass values between lanes through threadgroup memory with
# no barrier on that (a warp-synchronous scan, a shift, a partner's slot); the barrier in the
# loop makes the cpu backend run the group as one gang (wide mode), where those statements
# must not share one loop over the threads.
LOCKSTEP_SRC = HEADER + """
kernel void k(device const float* in [[buffer(0)]], device float* out [[buffer(1)]],
              uint gid [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]],
              uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float t[1024];
    threadgroup float u[4096];
    float acc = 0.0f;
    for (int round = 0; round < 2; round++) {
        t[lid] = in[gid] + float(round);
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint d = 1; d < 32; d *= 2) {        // a scan within the SIMD group
            float o = lane >= d ? t[lid - d] : 0.0f;
            t[lid] += o;
        }
        if (lane > 0) t[lid] = t[lid - 1] * 0.5f; // reads the slot the lane below writes
        float x = t[lid] + 1.0f;
        t[lid] = x;
        float y = t[lid ^ 1u];                    // the partner's new value
        for (int i = 0; i < 4; i++) u[lid * 4 + i] = x + float(i);
        for (int i = 0; i < 4; i++) acc += u[lid * 4 + i] * float(i + 1);
        acc += y;
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    out[gid] = acc;
}
"""


def shift_up_halved(t):
    """`if (lane > 0) t[lid] = t[lid - 1] * 0.5f;` in lock step: every lane reads, then writes"""
    return np.concatenate([t[:1], t[:-1] * 0.5])


def run_lock_step(run, rng, src, name, tg, ngroups, simd_group_result):
    """Runs src on ngroups groups of tg threads with random floats in `name` and returns
    out against simd_group_result(its SIMD group's inputs, float64) per SIMD group."""
    n = tg * ngroups
    x = floats(rng, n, -1.0, 1.0)
    r = run(src, {name: x, "out": garbage(rng, n)}, ["out"], threadgroups=ngroups, threads=tg)
    want = np.zeros(n)
    for g in groups(n, tg, 32):
        want[g] = simd_group_result(x[g].astype(np.float64))
    return r["out"], want


@pytest.mark.parametrize("tg", [96, 80])  # SIMD groups of 32, 32, 32 and of 32, 32, 16
def test_lanes_in_lock_step_through_threadgroup_memory(tg, run, rng):
    def simd_group(xs):
        acc = np.zeros(len(xs))
        for rnd in range(2):
            t = xs + rnd
            d = 1
            while d < 32:
                o = np.array([t[l - d] if l >= d else 0.0 for l in range(len(xs))])
                t = t + o
                d *= 2
            xx = shift_up_halved(t) + 1.0
            acc += xx[np.arange(len(xs)) ^ 1] + sum((xx + i) * (i + 1) for i in range(4))
        return acc
    got, want = run_lock_step(run, rng, LOCKSTEP_SRC, "in", tg, 3, simd_group)
    close(got, want, rtol=1e-5, atol=1e-4, what="lock-step lanes through threadgroup memory")


# -- the same through device memory: a shift and a partner's slot in the kernel's own buffer
LOCKSTEP_DEVICE_SRC = HEADER + """
kernel void k(device float* io [[buffer(0)]], device float* out [[buffer(1)]],
              uint gid [[thread_position_in_grid]], uint lane [[thread_index_in_simdgroup]]) {
    float acc = 0.0f;
    for (int round = 0; round < 2; round++) {
        if (lane > 0) io[gid] = io[gid - 1] * 0.5f;  // every lane reads before any writes
        io[gid] += 1.0f;
        acc += io[gid ^ 1u];                         // the partner's new value
        threadgroup_barrier(mem_flags::mem_device);
    }
    out[gid] = acc;
}
"""


@pytest.mark.parametrize("tg", [96, 80])
def test_lanes_in_lock_step_through_device_memory(tg, run, rng):
    def simd_group(io):
        acc = np.zeros(len(io))
        for _ in range(2):
            io = shift_up_halved(io) + 1.0
            acc += io[np.arange(len(io)) ^ 1]
        return acc
    got, want = run_lock_step(run, rng, LOCKSTEP_DEVICE_SRC, "io", tg, 2, simd_group)
    close(got, want, rtol=1e-5, atol=1e-5, what="lock-step lanes through device memory")
