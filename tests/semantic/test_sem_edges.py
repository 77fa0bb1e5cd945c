"""Where two rules meet: SIMD functions in edge threadgroups and in 2-D threadgroups,
collectives after some threads returned, barriers in loops left by break and continue,
half and bfloat in threadgroup memory, structs in threadgroup memory."""
import numpy as np
import pytest

import semharness
from semharness import close, exact, floats, garbage, ints

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"

EDGE_SIMD_SRC = HEADER + """
kernel void k(device int* out [[buffer(0)]], uint gid [[thread_position_in_grid]],
              uint nsg [[simdgroups_per_threadgroup]]) {
    out[gid] = simd_sum(1) * 1000 + simd_prefix_exclusive_sum(1) + int(nsg) * 100000 + quad_sum(1) * 10000000;
}
"""


@pytest.mark.parametrize("grid,tg", [(100, 64), (70, 96), (33, 32)])
def test_simd_groups_of_edge_threadgroups(grid, tg, run, rng):
    out = run(EDGE_SIMD_SRC, {"out": garbage(rng, grid, np.int32)}, ["out"], grid=grid, threads=tg)["out"]
    want = []
    for base in range(0, grid, tg):
        size = min(tg, grid - base)
        nsg = -(-size // 32)
        for l in range(size):
            sg_size = min(32, size - l // 32 * 32)
            q_size = min(4, size - l // 4 * 4)
            want.append(sg_size * 1000 + l % 32 + nsg * 100000 + q_size * 10000000)
    exact(out, np.array(want, np.int32), "SIMD and quad groups of edge threadgroups")


FLATTEN_SRC = HEADER + """
kernel void k(device int* out [[buffer(0)]], uint2 gid [[thread_position_in_grid]],
              uint2 grid [[threads_per_grid]], uint2 lid [[thread_position_in_threadgroup]]) {
    int v = int(lid.x + 100 * lid.y);
    out[(gid.y * grid.x + gid.x) * 3 + 0] = simd_sum(v);
    out[(gid.y * grid.x + gid.x) * 3 + 1] = simd_broadcast_first(v);
    out[(gid.y * grid.x + gid.x) * 3 + 2] = quad_max(v);
}
"""


def test_simd_groups_slice_the_flattened_2d_index(run, rng):
    tx, ty, gx, gy = 8, 6, 3, 2          # 48 threads per group: SIMD groups of 32 and 16
    out = run(FLATTEN_SRC, {"out": garbage(rng, tx * gx * ty * gy * 3, np.int32)}, ["out"],
              threadgroups=(gx, gy), threads=(tx, ty))["out"].reshape(ty * gy, tx * gx, 3)
    idx = np.arange(tx * ty)
    v = idx % tx + 100 * (idx // tx)
    sums = np.array([v[:32].sum(), v[32:].sum()])
    firsts = np.array([v[0], v[32]])
    for y in range(ty * gy):
        for x in range(tx * gx):
            i = (y % ty) * tx + x % tx
            q = v[i // 4 * 4:i // 4 * 4 + 4]
            exact(out[y, x], np.array([sums[i // 32], firsts[i // 32], q.max()], np.int32), f"thread ({x},{y})")


AFTER_RETURN_SRC = HEADER + """
kernel void k(device const float* x [[buffer(0)]], device float* out [[buffer(1)]],
              device uint* ballot [[buffer(2)]], constant uint& n [[buffer(3)]],
              uint gid [[thread_position_in_grid]]) {
    if (x[gid] < 0.0f || gid >= n) return;        // these lanes are no longer active
    out[gid] = simd_sum(x[gid]) + simd_prefix_inclusive_sum(1.0f) * 1000.0f;
    ballot[gid] = uint(simd_vote::vote_t(simd_active_threads_mask()));
}
"""


def test_collectives_after_some_threads_returned(run, rng):
    groups, tg = 4, 64
    n_all = groups * tg
    x = floats(rng, n_all, -1, 3)
    n = n_all - 21
    out0, b0 = garbage(rng, n_all), garbage(rng, n_all, np.uint32)
    r = run(AFTER_RETURN_SRC, {"x": x, "out": out0, "ballot": b0, "n": str(n)}, ["out", "ballot"],
            threadgroups=groups, threads=tg)
    want, wb = out0.astype(np.float64), b0.astype(np.int64)
    for base in range(0, n_all, 32):
        live = [t for t in range(base, base + 32) if x[t] >= 0 and t < n]
        s = x[live].astype(np.float64).sum()
        mask = sum(1 << (t - base) for t in live)
        for k, t in enumerate(live):
            want[t] = s + (k + 1) * 1000
            wb[t] = mask
    close(r["out"], want, rtol=1e-6, atol=1e-3, what="simd_sum over the threads that did not return")
    exact(r["ballot"], wb.astype(np.uint32), "active mask after returns")


BREAK_CONTINUE_SRC = HEADER + """
kernel void k(device float* x [[buffer(0)]], constant int& limit [[buffer(1)]],
              uint lid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]]) {
    threadgroup float tile[64];
    float v = x[gid];
    for (int r = 0; r < 100; r++) {
        if (r == limit) break;                 // uniform: every thread leaves together
        tile[lid] = v;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        if (r % 3 == 2) {
            v = v * 0.5f;
            threadgroup_barrier(mem_flags::mem_threadgroup);
            continue;                          // uniform too
        }
        v = tile[(lid + 1) % 64] + 1.0f;
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    x[gid] = v;
}
"""


def test_barriers_in_a_loop_left_by_break_and_continue(run, rng):
    groups = 3
    limit = int(rng.integers(4, 12))
    x = floats(rng, groups * 64, -4, 4)
    out = run(BREAK_CONTINUE_SRC, {"x": x, "limit": str(limit)}, ["x"], threadgroups=groups, threads=64)["x"]
    v = x.astype(np.float64).reshape(groups, 64)
    for r in range(limit):
        if r % 3 == 2:
            v = v * 0.5
        else:
            v = np.roll(v, -1, axis=1) + 1
    close(out, v.reshape(-1), rtol=1e-6, atol=1e-5, what=f"{limit} rounds")


SMALL_FLOATS_TG_SRC = HEADER + """
struct Pair { half h; bfloat b; float f; };

kernel void k(device const half* h [[buffer(0)]], device const bfloat* b [[buffer(1)]],
              device half* hout [[buffer(2)]], device bfloat* bout [[buffer(3)]],
              device float* fout [[buffer(4)]],
              uint lid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]]) {
    threadgroup half th[32];
    threadgroup Pair pairs[32];
    th[lid] = h[gid] * 3.0h;                   // rounded to half in threadgroup memory
    pairs[lid].h = h[gid];
    pairs[lid].b = b[gid];
    pairs[lid].f = float(b[gid]) * 0.25f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint o = 31 - lid;
    hout[gid] = th[o] + pairs[o].h;
    bout[gid] = pairs[o].b * bfloat(2.0f) + bfloat(pairs[o].f);
    fout[gid] = float(th[o]);
}
"""


def bf16_bits(x):
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


def test_half_bfloat_and_structs_in_threadgroup_memory(run, rng):
    groups = 5
    n = groups * 32
    h = floats(rng, n, -50, 50, dtype=np.float16)
    b = bf16_bits(floats(rng, n, -50, 50))
    r = run(SMALL_FLOATS_TG_SRC, {"h": h, "b": b, "hout": garbage(rng, n, np.float16),
                                  "bout": garbage(rng, n, np.uint16), "fout": garbage(rng, n)},
            ["hout", "bout", "fout"], threadgroups=groups, threads=32)
    rev = (np.arange(n) // 32) * 32 + 31 - np.arange(n) % 32
    th = (h.astype(np.float32) * np.float32(3)).astype(np.float16)
    exact(r["fout"], th[rev].astype(np.float32), "half in threadgroup memory")
    exact(r["hout"], (th[rev].astype(np.float32) + h[rev].astype(np.float32)).astype(np.float16), "half sum")
    bv = bf16_value(b)
    f = bv * np.float32(0.25)
    want_b = bf16_bits(bv[rev] * np.float32(2) + bf16_value(bf16_bits(f[rev])))
    exact(r["bout"], want_b, "bfloat in a threadgroup struct")


BIG_GROUP_SRC = HEADER + """
kernel void k(device const float* x [[buffer(0)]], device float* sums [[buffer(1)]],
              uint lid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]],
              uint group [[threadgroup_position_in_grid]], uint sg [[simdgroup_index_in_threadgroup]],
              uint lane [[thread_index_in_simdgroup]], uint nsg [[simdgroups_per_threadgroup]]) {
    // seed 004's two-stage reduction at the largest threadgroup: SIMD sums, then one SIMD group
    threadgroup float partial[32];
    float s = simd_sum(x[gid]);
    if (lane == 0) partial[sg] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (sg == 0) {
        float p = lane < nsg ? partial[lane] : 0.0f;
        p = simd_sum(p);
        if (lane == 0) sums[group] = p;
    }
}
"""


def test_two_stage_reduction_1024_threads(run, rng):
    groups = 3
    x = floats(rng, groups * 1024, -1, 1)
    out = run(BIG_GROUP_SRC, {"x": x, "sums": garbage(rng, groups)}, ["sums"], threadgroups=groups, threads=1024)["sums"]
    close(out, x.astype(np.float64).reshape(groups, 1024).sum(axis=1), rtol=1e-5, atol=1e-4, what="1024-thread sums")


LIMITS_SRC = HEADER + """
kernel void k(device float* x [[buffer(0)]], threadgroup float* t [[threadgroup(0)]],
              uint lid [[thread_index_in_threadgroup]], uint gid [[thread_position_in_grid]]) {
    t[lid] = x[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    x[gid] = t[0];
}
"""


def test_limits_are_refused_with_the_numbers(run, rng):
    info = semharness.device_info()
    tg_limit = info["max threadgroup memory"]         # 32768 on the cpu, as on Apple GPUs
    thread_limit = info["max threads per threadgroup"]
    x = floats(rng, 4096, -1, 1)
    over = tg_limit + 64
    r = run(LIMITS_SRC, {"x": x}, ["x"], threadgroups=1, threads=64, tgmem={0: over}, expect_rc=None)
    assert r.returncode in (1, 3), r
    assert str(over) in r.stderr and str(tg_limit) in r.stderr, r.stderr
    r = run(LIMITS_SRC, {"x": x}, ["x"], threadgroups=1, threads=2 * thread_limit, tgmem={0: 1024},
            expect_rc=None)
    assert r.returncode in (1, 3), r
    assert str(2 * thread_limit) in r.stderr and str(thread_limit) in r.stderr, r.stderr


HALF_SPECIALS_SRC = HEADER + """
kernel void k(device const float* f [[buffer(0)]], device half* h [[buffer(1)]],
              device float* back [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    half v = half(f[i]);            // overflow gives infinity; tiny values become subnormal or 0
    h[i] = v;
    back[i] = float(v) * 2.0f;
}
"""


def test_half_conversion_overflow_and_subnormals(run, rng):
    n = 256
    f = np.concatenate([floats(rng, 64, 65000, 1e6), -floats(rng, 64, 65000, 1e6),
                        floats(rng, 64, 1e-7, 6e-5), floats(rng, 64, -3, 3)]).astype(np.float32)
    r = run(HALF_SPECIALS_SRC, {"f": f, "h": garbage(rng, n, np.float16), "back": garbage(rng, n)},
            ["h", "back"], grid=n, threads=32)
    with np.errstate(over="ignore"):
        want = f.astype(np.float16)      # IEEE round to nearest even, overflow to infinity
    exact(r["h"].view(np.uint16), want.view(np.uint16), "float to half")
    exact(r["back"], want.astype(np.float32) * np.float32(2), "half to float")


# Apple's GPUs read and write vectors at addresses short of their alignment (a float4 at a
# float's address), and real code relies on it: ggml's matrix kernels store float4s into
# result rows of any length. Every access form: consecutive lanes, a gather, one address for
# all lanes, a masked scatter.
UNALIGNED_VECTOR_SRC = HEADER + """
struct pair { float4 a; float4 b; };
kernel void k(device const float* x [[buffer(0)]], device float* out [[buffer(1)]],
              device float* scattered [[buffer(2)]], constant uint& off [[buffer(3)]],
              uint gid [[thread_position_in_grid]]) {
    device const float4* rows = (device const float4*)(x + off);
    float4 a = rows[gid];                                        // consecutive lanes
    float4 b = *(device const float4*)(x + off + 5 * gid);       // a gather
    float4 u = rows[1];                                          // one address for every lane
    device const pair* p = (device const pair*)(x + off + 3);
    ((device float4*)(out + off))[gid] = a + 2.0f * b + 4.0f * u + 8.0f * p[gid].b;
    if (gid % 3 != 0) *(device float4*)(scattered + off + 6 * gid) = a - b;   // a masked scatter
}
"""


@pytest.mark.parametrize("off", [1, 2, 3])
def test_vectors_at_addresses_short_of_their_alignment(off, run, rng):
    n = 96
    x = floats(rng, 8 * n + 16)
    out0, sc0 = garbage(rng, 4 * n + 8), garbage(rng, 6 * n + 8)
    r = run(UNALIGNED_VECTOR_SRC, {"x": x, "out": out0, "scattered": sc0, "off": str(off)},
            ["out", "scattered"], grid=n, threads=64)
    x64 = x.astype(np.float64)
    vec = lambda start: x64[start:start + 4]  # noqa: E731
    want, want_sc = out0.astype(np.float64), sc0.astype(np.float64)
    for g in range(n):
        a, b = vec(off + 4 * g), vec(off + 5 * g)
        want[off + 4 * g:off + 4 * g + 4] = a + 2 * b + 4 * vec(off + 4) + 8 * vec(off + 3 + 8 * g + 4)
        if g % 3:
            want_sc[off + 6 * g:off + 6 * g + 4] = a - b
    close(r["out"], want, what="float4 loads and stores at float addresses")
    close(r["scattered"], want_sc, what="masked float4 stores at float addresses")
