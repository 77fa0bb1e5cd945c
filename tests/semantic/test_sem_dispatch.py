"""Dispatch geometry (Metal's dispatchThreads and dispatchThreadgroups) in 1, 2 and 3
dimensions: every position attribute, edge threadgroups that are smaller under dispatch
by threads (threads_per_threadgroup reports their real size, barriers still work in
them), and SIMD groups as linear slices of the threadgroup's flattened index."""
import itertools

import numpy as np
import pytest

from semharness import exact, garbage, ints

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"

ATTRS_SRC = HEADER + """
kernel void k(device uint* out [[buffer(0)]],
              uint3 gid [[thread_position_in_grid]], uint3 grid [[threads_per_grid]],
              uint3 lid [[thread_position_in_threadgroup]], uint3 tptg [[threads_per_threadgroup]],
              uint3 tgpos [[threadgroup_position_in_grid]], uint3 tgs [[threadgroups_per_grid]],
              uint3 dtptg [[dispatch_threads_per_threadgroup]],
              uint index [[thread_index_in_threadgroup]], uint sg [[simdgroup_index_in_threadgroup]],
              uint lane [[thread_index_in_simdgroup]], uint nsg [[simdgroups_per_threadgroup]],
              uint width [[thread_execution_width]], uint simd_size [[threads_per_simdgroup]],
              uint quad [[quadgroup_index_in_threadgroup]], uint qlane [[thread_index_in_quadgroup]]) {
    if (gid.x >= grid.x || gid.y >= grid.y || gid.z >= grid.z) return;
    device uint* o = out + ((gid.z * grid.y + gid.y) * grid.x + gid.x) * 28;
    o[0] = gid.x; o[1] = gid.y; o[2] = gid.z;
    o[3] = grid.x; o[4] = grid.y; o[5] = grid.z;
    o[6] = lid.x; o[7] = lid.y; o[8] = lid.z;
    o[9] = tptg.x; o[10] = tptg.y; o[11] = tptg.z;
    o[12] = tgpos.x; o[13] = tgpos.y; o[14] = tgpos.z;
    o[15] = tgs.x; o[16] = tgs.y; o[17] = tgs.z;
    o[18] = dtptg.x; o[19] = dtptg.y; o[20] = dtptg.z;
    o[21] = index; o[22] = sg; o[23] = lane; o[24] = nsg;
    o[25] = width * 1000u + simd_size;
    o[26] = quad; o[27] = qlane;
}
"""


def expected_attrs(grid, tptg, by_threads):
    """Metal's values for each thread, keyed by its grid position."""
    grid3 = tuple(grid) + (1,) * (3 - len(grid))
    tp3 = tuple(tptg) + (1,) * (3 - len(tptg))
    if by_threads:
        tgs = tuple(-(-g // t) for g, t in zip(grid3, tp3))
        total = grid3
    else:
        tgs = grid3
        total = tuple(g * t for g, t in zip(grid3, tp3))
    rows = {}
    for tg in itertools.product(*(range(n) for n in tgs)):
        size = tuple(min(t, tot - p * t) for t, tot, p in zip(tp3, total, tg))  # edge groups shrink
        count = size[0] * size[1] * size[2]
        for l in itertools.product(*(range(n) for n in size)):
            g = tuple(p * t + i for p, t, i in zip(tg, tp3, l))
            index = (l[2] * size[1] + l[1]) * size[0] + l[0]
            rows[g] = list(g) + list(total) + list(l) + list(size) + list(tg) + list(tgs) + list(tp3) + [
                index, index // 32, index % 32, -(-count // 32), 32 * 1000 + 32, index // 4, index % 4]
    return total, rows


CASES = [
    ("1d by threads", (1000,), (64,), True),
    ("1d by threads, tiny edge", (97,), (96,), True),
    ("2d by threads", (37, 23), (8, 4), True),
    ("3d by threads", (9, 7, 5), (4, 2, 3), True),
    ("3d by threadgroups", (3, 2, 2), (5, 3, 2), False),
    ("2d by threadgroups, 48 threads", (4, 3), (16, 3), False),
]


@pytest.mark.parametrize("name,size,threads,by_threads", CASES, ids=[c[0] for c in CASES])
def test_position_attributes(name, size, threads, by_threads, run, rng):
    total, rows = expected_attrs(size, threads, by_threads)
    n = total[0] * total[1] * total[2]
    kw = {"grid": size} if by_threads else {"threadgroups": size}
    out = run(ATTRS_SRC, {"out": garbage(rng, n * 28, np.uint32)}, ["out"], threads=threads, **kw)["out"]
    out = out.reshape(n, 28)
    want = np.zeros((n, 28), dtype=np.int64)
    for g, row in rows.items():
        want[(g[2] * total[1] + g[1]) * total[0] + g[0]] = row
    exact(out, want.astype(np.uint32), f"attributes ({name})")


EDGE_REDUCE_SRC = HEADER + """
kernel void k(device const float* x [[buffer(0)]], device float* out [[buffer(1)]],
              uint2 gid [[thread_position_in_grid]], uint2 grid [[threads_per_grid]],
              uint2 lid [[thread_position_in_threadgroup]], uint2 size [[threads_per_threadgroup]],
              uint index [[thread_index_in_threadgroup]]) {
    // a barrier-synchronised sum over each (possibly smaller) edge threadgroup
    threadgroup float tile[64];
    uint count = size.x * size.y;
    tile[index] = x[gid.y * grid.x + gid.x];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float s = 0.0f;
    for (uint i = 0; i < count; i++) s += tile[i];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[gid.y * grid.x + gid.x] = s + float(count) * 1000.0f;
}
"""


def test_barriers_in_edge_threadgroups(run, rng):
    gx, gy, tx, ty = 29, 13, 8, 8
    x = rng.integers(1, 100, gx * gy).astype(np.float32)   # integers: sums are exact in any order
    out = run(EDGE_REDUCE_SRC, {"x": x, "out": garbage(rng, gx * gy)}, ["out"], grid=(gx, gy), threads=(tx, ty))["out"]
    xs = x.reshape(gy, gx).astype(np.float64)
    want = np.zeros((gy, gx))
    for by in range(0, gy, ty):
        for bx in range(0, gx, tx):
            blk = xs[by:by + ty, bx:bx + tx]
            want[by:by + ty, bx:bx + tx] = blk.sum() + blk.size * 1000
    exact(out.astype(np.float64), want.reshape(-1), "sums over edge threadgroups")


GRID_STRIDE_SRC = HEADER + """
kernel void k(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],
              constant uint& n [[buffer(2)]],
              uint gid [[thread_position_in_grid]], uint threads [[threads_per_grid]]) {
    for (uint i = gid; i < n; i += threads) y[i] = x[i] * 2.0f + 1.0f;
}
"""


def test_grid_stride_loop_scalar_argument(run, rng):
    n = 5000
    x = rng.uniform(-10, 10, n).astype(np.float32)
    y0 = garbage(rng, n)
    out = run(GRID_STRIDE_SRC, {"x": x, "y": y0, "n": str(n - 3)}, ["y"], grid=333, threads=32)["y"]
    want = y0.copy()
    want[:n - 3] = x[:n - 3] * np.float32(2) + np.float32(1)
    exact(out, want, "grid-stride loop")


USHORT_ATTRS_SRC = HEADER + """
kernel void k(device ushort* out [[buffer(0)]], ushort2 gid [[thread_position_in_grid]],
              ushort2 grid [[threads_per_grid]], ushort2 lid [[thread_position_in_threadgroup]]) {
    out[(gid.y * grid.x + gid.x) * 2] = lid.x + lid.y * ushort(100);
    out[(gid.y * grid.x + gid.x) * 2 + 1] = gid.x ^ gid.y;
}
"""


def test_ushort_attributes(run, rng):
    gx, gy = 21, 11
    out = run(USHORT_ATTRS_SRC, {"out": garbage(rng, gx * gy * 2, np.uint16)}, ["out"], grid=(gx, gy),
              threads=(4, 4))["out"].reshape(gy, gx, 2)
    yy, xx = np.mgrid[0:gy, 0:gx]
    exact(out[:, :, 0], ((xx % 4) + (yy % 4) * 100).astype(np.uint16), "ushort2 thread_position_in_threadgroup")
    exact(out[:, :, 1], (xx ^ yy).astype(np.uint16), "ushort2 thread_position_in_grid")
