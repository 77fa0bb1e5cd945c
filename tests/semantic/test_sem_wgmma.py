"""The threadgroup GEMM of bench/cuda/gemm_simdgroup.metal (issue 11) and its neighbours: what
they compute on every backend, and, from the generated CUDA C, which of them the cuda backend
runs as one warpgroup's wgmma (src/cuda/wgmma.c) and which keep mma.sync.

4 SIMD groups (128 threads) own a 64x64 tile of C; K advances 32 at a time through padded
threadgroup arrays filled by 16-byte chunk stores. Inputs are multiples of 1/16 of at most 1,
so every product and every partial sum is exact in float: the result must equal the float64
NumPy product exactly, whatever the order of accumulation (wgmma sums in its own order).

On a GPU machine: ENIGMA_BACKEND=cuda python3 -m pytest -q tests/semantic/test_sem_wgmma.py
(the H100 and H200 run the wgmma form; ENIGMA_CUDA_WGMMA=0 runs mma.sync for comparison).
By default the backend takes wgmma for the pipelined form (the next slice's copy beside the
MMAs) and for the plain form where it pipelines it itself (src/cuda/wgmma_pipe.c: copies of
device loads); these tests set ENIGMA_CUDA_WGMMA=all so that the plain form runs it in any
case, and test_default_takes_the_pipelined_form checks the default. In the pipelined form's warpgroup code
the next slice's loads and stores are cp.async where src/cuda/wgmma_copy.c proves it may (the
test_cpasync_* tests say where; ENIGMA_CUDA_CPASYNC=0 switches it off), so the pipelined
cases here run that path on an H100/H200."""
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from semharness import cli_path, exact, garbage, new_rng, run

# the plain form (copy, barrier, multiply, barrier) too, so that its warpgroup form is tested
os.environ.setdefault("ENIGMA_CUDA_WGMMA", "all")

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"

# the SIMD groups' tiles: (rows, columns of accumulators, load row origin, load column origin,
# store row origin) as MSL expressions of sg
TILES = {
    # the bench kernel's 32x32 quarters
    "quarters": (4, 4, "(sg / 2) * 32", "(sg % 2) * 32", "(sg / 2) * 32"),
    # 16x64 strips, one a SIMD group: the tile once too (wgmma's own row split)
    "strips": (2, 8, "sg * 16", "0", "sg * 16"),
    # SIMD groups 2 and 3 multiply the rows 0 and 1 do, and store them 32 rows lower: the
    # tile is not covered once, so no wgmma
    "overlap": (4, 4, "0", "(sg % 2) * 32", "(sg / 2) * 32"),
}


def gemm_source(t, tile="quarters", peek=False, pad=8, fill_padding=False, bk=32):
    """the bench GEMM for element type t; peek: each thread also reads its row's first element
    of the A staging array with a plain load each K step (into P), so the array's layout is
    the kernel's; pad: elements added to each staging row (8: the bench's 16 bytes);
    fill_padding: each K step also stores a chunk of zeros into the padding of every row
    (which no multiply reads); bk: the K slice (16, 32 or 64: A's staged rows are 32, 64 or
    128 bytes, each its own swizzle mode)"""
    ai, aj, sr, sc, so = TILES[tile]
    peek_param = ", device float *P [[buffer(6)]]" if peek else ""
    peek_decl = "float seen = 0.0f;" if peek else ""
    peek_read = "seen += float(As[(tid % 64) * AP]);" if peek else ""
    peek_write = "P[(tg.y * (N / 64) + tg.x) * 128 + tid] = seen;" if peek else ""
    fill = ""
    if fill_padding:
        fill = ("if (tid < 64) *(threadgroup uint4 *)(As + tid * AP + BK) = uint4(0);\n"
                "        else if (tid < 96) *(threadgroup uint4 *)(Bs + (tid - 64) * BP + 64) = uint4(0);")
    return HEADER + f"""
kernel void gemm(device const {t} *A [[buffer(0)]], device const {t} *B [[buffer(1)]],
                 device float *C [[buffer(2)]], constant uint &M [[buffer(3)]],
                 constant uint &N [[buffer(4)]], constant uint &K [[buffer(5)]]{peek_param},
                 uint2 tg [[threadgroup_position_in_grid]],
                 ushort sg [[simdgroup_index_in_threadgroup]],
                 ushort tid [[thread_index_in_threadgroup]]) {{
    const ushort BK = {bk}, AP = BK + {pad}, BP = 64 + {pad}, PER_CHUNK = 16 / sizeof({t});
    threadgroup {t} As[64 * ({bk} + {pad})];
    threadgroup {t} Bs[{bk} * (64 + {pad})];
    const uint row0 = tg.y * 64, col0 = tg.x * 64;
    const ushort sr = {sr}, sc = {sc}, so = {so};
    {peek_decl}
    simdgroup_float8x8 acc[{ai}][{aj}];
    for (short i = 0; i < {ai}; i++)
        for (short j = 0; j < {aj}; j++)
            acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    for (uint k0 = 0; k0 < K; k0 += BK) {{
        for (ushort c = tid; c < 64 * BK / PER_CHUNK; c += 128) {{
            ushort r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK;
            *(threadgroup uint4 *)(As + r * AP + k) = *(device const uint4 *)(A + (row0 + r) * K + k0 + k);
        }}
        for (ushort c = tid; c < BK * 64 / PER_CHUNK; c += 128) {{
            ushort r = c / (64 / PER_CHUNK), n = (c % (64 / PER_CHUNK)) * PER_CHUNK;
            *(threadgroup uint4 *)(Bs + r * BP + n) = *(device const uint4 *)(B + (k0 + r) * N + col0 + n);
        }}
        {fill}
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (short kk = 0; kk < BK; kk += 8) {{
            simdgroup_matrix<{t}, 8, 8> a[{ai}], b[{aj}];
            for (short i = 0; i < {ai}; i++) simdgroup_load(a[i], As + (sr + i * 8) * AP + kk, AP);
            for (short j = 0; j < {aj}; j++) simdgroup_load(b[j], Bs + kk * BP + sc + j * 8, BP);
            for (short i = 0; i < {ai}; i++)
                for (short j = 0; j < {aj}; j++)
                    simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);
        }}
        {peek_read}
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }}
    for (short i = 0; i < {ai}; i++)
        for (short j = 0; j < {aj}; j++)
            simdgroup_store(acc[i][j], C + (row0 + so + i * 8) * N + col0 + sc + j * 8, N);
    {peek_write}
}}
"""


def pipelined_source(t, next_buffer="cur ^ 1u", peek_register=False):
    """the bench's pipelined form: the next K slice waits in registers during this slice's
    multiplies, then goes to the other of two buffers (next_buffer), one barrier a step;
    peek_register: each thread also reads the first element of its register chunk ra[0]
    after the stores each step (into P), so A's chunks have a second reader and cannot be
    asynchronous copies (B's still can)"""
    peek_param = ", device float *P [[buffer(6)]]" if peek_register else ""
    peek_decl = "float seen = 0.0f;" if peek_register else ""
    peek_read = f"seen += float(as_type<{t}2>(ra[0].x).x);" if peek_register else ""
    peek_write = "P[(tg.y * (N / 64) + tg.x) * 128 + tid] = seen;" if peek_register else ""
    return HEADER + f"""
kernel void gemm(device const {t} *A [[buffer(0)]], device const {t} *B [[buffer(1)]],
                 device float *C [[buffer(2)]], constant uint &M [[buffer(3)]],
                 constant uint &N [[buffer(4)]], constant uint &K [[buffer(5)]]{peek_param},
                 uint2 tg [[threadgroup_position_in_grid]],
                 ushort sg [[simdgroup_index_in_threadgroup]],
                 ushort tid [[thread_index_in_threadgroup]]) {{
    const ushort BK = 32, AP = BK + 8, BP = 64 + 8, PER_CHUNK = 16 / sizeof({t});
    threadgroup {t} As[2][64 * (32 + 8)];
    threadgroup {t} Bs[2][32 * (64 + 8)];
    const uint row0 = tg.y * 64, col0 = tg.x * 64;
    const ushort sr = (sg / 2) * 32, sc = (sg % 2) * 32;
    {peek_decl}
    uint4 ra[2], rb[2];
    for (ushort u = 0; u < 2; u++) {{
        ushort c = tid + u * 128, r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK;
        ra[u] = *(device const uint4 *)(A + (row0 + r) * K + k);
        ushort n = (c % (64 / PER_CHUNK)) * PER_CHUNK, rr = c / (64 / PER_CHUNK);
        rb[u] = *(device const uint4 *)(B + rr * N + col0 + n);
    }}
    for (ushort u = 0; u < 2; u++) {{
        ushort c = tid + u * 128, r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK;
        *(threadgroup uint4 *)(&As[0][r * AP + k]) = ra[u];
        ushort n = (c % (64 / PER_CHUNK)) * PER_CHUNK, rr = c / (64 / PER_CHUNK);
        *(threadgroup uint4 *)(&Bs[0][rr * BP + n]) = rb[u];
    }}
    threadgroup_barrier(mem_flags::mem_threadgroup);
    simdgroup_float8x8 acc[4][4];
    for (short i = 0; i < 4; i++)
        for (short j = 0; j < 4; j++)
            acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    for (uint k0 = 0; k0 < K; k0 += BK) {{
        const uint cur = (k0 / BK) & 1u;
        const bool more = k0 + BK < K;
        if (more) {{
            for (ushort u = 0; u < 2; u++) {{
                ushort c = tid + u * 128, r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK;
                ra[u] = *(device const uint4 *)(A + (row0 + r) * K + k0 + BK + k);
                ushort n = (c % (64 / PER_CHUNK)) * PER_CHUNK, rr = c / (64 / PER_CHUNK);
                rb[u] = *(device const uint4 *)(B + (k0 + BK + rr) * N + col0 + n);
            }}
        }}
        threadgroup const {t} *as = &As[cur][0], *bs = &Bs[cur][0];
        for (short kk = 0; kk < BK; kk += 8) {{
            simdgroup_matrix<{t}, 8, 8> a[4], b[4];
            for (short i = 0; i < 4; i++) simdgroup_load(a[i], as + (sr + i * 8) * AP + kk, AP);
            for (short j = 0; j < 4; j++) simdgroup_load(b[j], bs + kk * BP + sc + j * 8, BP);
            for (short i = 0; i < 4; i++)
                for (short j = 0; j < 4; j++)
                    simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);
        }}
        if (more) {{
            for (ushort u = 0; u < 2; u++) {{
                ushort c = tid + u * 128, r = c / (BK / PER_CHUNK), k = (c % (BK / PER_CHUNK)) * PER_CHUNK;
                *(threadgroup uint4 *)(&As[{next_buffer}][r * AP + k]) = ra[u];
                ushort n = (c % (64 / PER_CHUNK)) * PER_CHUNK, rr = c / (64 / PER_CHUNK);
                *(threadgroup uint4 *)(&Bs[{next_buffer}][rr * BP + n]) = rb[u];
            }}
            {peek_read}
        }}
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }}
    for (short i = 0; i < 4; i++)
        for (short j = 0; j < 4; j++)
            simdgroup_store(acc[i][j], C + (row0 + sr + i * 8) * N + col0 + sc + j * 8, N);
    {peek_write}
}}
"""


def bf16_bits(x):
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def stored(t, x):
    """x (exact in both 16-bit types) as the kernel's input array"""
    return x.astype(np.float16) if t == "half" else bf16_bits(x)


def sixteenths(rng, shape):
    """multiples of 1/16 in [-1, 1], never 0: exact in half and bfloat"""
    return (rng.integers(1, 17, shape) * rng.choice([-1, 1], shape) / 16.0).astype(np.float64)


def run_gemm(tmp_path, t, m, n, k, tile="quarters", peek=False, src=None, pad=8, fill_padding=False, bk=32):
    rng = new_rng()
    a, b = sixteenths(rng, (m, k)), sixteenths(rng, (k, n))
    ins = {"A": stored(t, a), "B": stored(t, b), "C": garbage(rng, (m, n)), "M": str(m), "N": str(n), "K": str(k)}
    outs = ["C"]
    if peek:
        ins["P"] = garbage(rng, (m // 64) * (n // 64) * 128)
        outs.append("P")
    got = run(tmp_path, src or gemm_source(t, tile, peek, pad, fill_padding, bk), ins, outs,
              threadgroups=(n // 64, m // 64, 1), threads=128)
    return a, b, got


# grids of 1x1, 3x2 (one threadgroup a block), 4x4 and 4x2 (quads: wgmma_merge.c)
SIZES = [(64, 64, 32), (128, 192, 96), (256, 256, 512), (128, 256, 64)]


@pytest.mark.parametrize("t", ["half", "bfloat"])
@pytest.mark.parametrize("m,n,k", SIZES)
def test_gemm_tile(tmp_path, t, m, n, k):
    a, b, got = run_gemm(tmp_path, t, m, n, k)
    exact(got["C"], (a @ b).astype(np.float32), "C")


@pytest.mark.parametrize("t", ["half", "bfloat"])
@pytest.mark.parametrize("m,n,k", SIZES)
def test_gemm_pipelined(tmp_path, t, m, n, k):
    a, b, got = run_gemm(tmp_path, t, m, n, k, src=pipelined_source(t))
    exact(got["C"], (a @ b).astype(np.float32), "C")


@pytest.mark.parametrize("t", ["half", "bfloat"])
@pytest.mark.parametrize("bk,m,n,k", [(16, 64, 128, 48), (64, 128, 64, 192)])
def test_gemm_slice_widths(tmp_path, t, bk, m, n, k):
    """K slices of 16 and 64: A's staged rows of 32 and 128 bytes (the 32- and 128-byte
    swizzle modes; the bench's 32 is the 64-byte one)"""
    a, b, got = run_gemm(tmp_path, t, m, n, k, bk=bk)
    exact(got["C"], (a @ b).astype(np.float32), "C")


@pytest.mark.parametrize("layout", ["spread", "packed"])
@pytest.mark.parametrize("t", ["half", "bfloat"])
def test_gemm_core_layouts(tmp_path, monkeypatch, t, layout):
    """the staging in 8x8 core matrices, spread over the padding or back to back
    (ENIGMA_CUDA_WGMMA=spread / packed, kept to time them against the swizzled default)"""
    monkeypatch.setenv("ENIGMA_CUDA_WGMMA", layout)
    a, b, got = run_gemm(tmp_path, t, 128, 128, 96)
    exact(got["C"], (a @ b).astype(np.float32), "C")
    a, b, got = run_gemm(tmp_path, t, 128, 64, 96, src=pipelined_source(t))
    exact(got["C"], (a @ b).astype(np.float32), "C")


@pytest.mark.parametrize("t", ["half", "bfloat"])
@pytest.mark.parametrize("pad,fill_padding", [(0, False), (8, True), (16, True)])
def test_gemm_staging_padding(tmp_path, t, pad, fill_padding):
    """staging rows without padding (the wgmma layout's cores back to back), and padded rows
    whose padding the kernel also writes (the cores spread over the row: those stores must
    not land on the operands)"""
    a, b, got = run_gemm(tmp_path, t, 128, 128, 96, pad=pad, fill_padding=fill_padding)
    exact(got["C"], (a @ b).astype(np.float32), "C")


@pytest.mark.parametrize("t", ["half", "bfloat"])
def test_gemm_pipelined_other_buffer_unproven(tmp_path, t):
    """the next slice's buffer written as (cur + 1) & 1: another buffer, but not one the
    compiler proves so (no wgmma), and the same product"""
    a, b, got = run_gemm(tmp_path, t, 128, 64, 96, src=pipelined_source(t, "(cur + 1u) & 1u"))
    exact(got["C"], (a @ b).astype(np.float32), "C")


@pytest.mark.parametrize("t", ["half", "bfloat"])
def test_gemm_pipelined_register_read_elsewhere(tmp_path, t):
    """the pipelined form whose A register chunk is also read after its store (into P): A's
    next slice stays a load and a store (B's becomes asynchronous copies on cuda), and both
    the product and what the thread read are right"""
    m, n, k = 128, 128, 160
    rng = new_rng()
    a, b = sixteenths(rng, (m, k)), sixteenths(rng, (k, n))
    tiles = (m // 64) * (n // 64)
    ins = {"A": stored(t, a), "B": stored(t, b), "C": garbage(rng, (m, n)), "P": garbage(rng, tiles * 128),
           "M": str(m), "N": str(n), "K": str(k)}
    got = run(tmp_path, pipelined_source(t, peek_register=True), ins, ["C", "P"], threadgroups=(n // 64, m // 64, 1),
              threads=128)
    exact(got["C"], (a @ b).astype(np.float32), "C")
    # thread tid's ra[0] in the step at k0 holds A[row0 + tid / 4][k0 + 32 + (tid % 4) * 8 ...]
    want = np.zeros((tiles, 128))
    for ty in range(m // 64):
        for tx in range(n // 64):
            for tid in range(128):
                want[ty * (n // 64) + tx, tid] = sum(a[ty * 64 + tid // 4, k0 + 32 + (tid % 4) * 8]
                                                     for k0 in range(0, k - 32, 32))
    exact(got["P"], want.reshape(-1).astype(np.float32), "P")


@pytest.mark.parametrize("t", ["half", "bfloat"])
def test_gemm_row_strips(tmp_path, t):
    """each SIMD group a 16x64 strip: the warpgroup's own rows, still the tile once"""
    a, b, got = run_gemm(tmp_path, t, 128, 128, 64, tile="strips")
    exact(got["C"], (a @ b).astype(np.float32), "C")


@pytest.mark.parametrize("t", ["half", "bfloat"])
def test_gemm_overlapping_tiles(tmp_path, t):
    """two SIMD groups on the same quarter (no wgmma): C's lower half of each tile repeats the
    upper half's product"""
    m, n, k = 128, 128, 64
    a, b, got = run_gemm(tmp_path, t, m, n, k, tile="overlap")
    want = np.zeros((m, n))
    for r0 in range(0, m, 64):
        top = a[r0:r0 + 32] @ b
        want[r0:r0 + 32] = top
        want[r0 + 32:r0 + 64] = top
    exact(got["C"], want.astype(np.float32), "C")


@pytest.mark.parametrize("t", ["half", "bfloat"])
def test_gemm_staging_read_by_a_plain_load(tmp_path, t):
    """the A staging array is also read element by element: its layout must stay Metal's"""
    m, n, k = 128, 64, 96
    a, b, got = run_gemm(tmp_path, t, m, n, k, peek=True)
    exact(got["C"], (a @ b).astype(np.float32), "C")
    want = np.zeros(((m // 64) * (n // 64), 128))
    for ty in range(m // 64):
        for tx in range(n // 64):
            for tid in range(128):
                want[ty * (n // 64) + tx, tid] = a[ty * 64 + tid % 64, ::32].sum()
    exact(got["P"], want.reshape(-1).astype(np.float32), "P")


# ---- which form the cuda backend chose (no GPU needed) ----------------------------------------
def emit_cuda(tmp_path, src, **env):
    path = tmp_path / "kernel.metal"
    path.write_text(src)
    r = subprocess.run([str(cli_path()), "compile", str(path), "--emit", "cuda"], capture_output=True, text=True,
                       timeout=120, env={**os.environ, **env})
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("tile,peek,chosen", [("quarters", False, True), ("strips", False, True),
                                              ("overlap", False, False), ("quarters", True, False)])
@pytest.mark.parametrize("t", ["half", "bfloat"])
def test_wgmma_chosen(tmp_path, t, tile, peek, chosen):
    cuda = emit_cuda(tmp_path, gemm_source(t, tile, peek))
    assert ("en_wg_multiply" in cuda.split("// ---- end of prelude")[1]) == chosen
    if chosen:
        assert "en_wg_multiply_sw<64, 2, %s>" % ("true" if t == "bfloat" else "false") in cuda
        # switched off: the kernel as before
        assert "en_wg_" not in emit_cuda(tmp_path, gemm_source(t, tile, peek), ENIGMA_CUDA_WGMMA="0").split(
            "// ---- end of prelude")[1]


@pytest.mark.parametrize("next_buffer,chosen", [("cur ^ 1u", True), ("(cur + 1u) & 1u", False), ("cur", False)])
def test_wgmma_chosen_pipelined(tmp_path, next_buffer, chosen):
    """the next slice into the other buffer while this one is multiplied: wgmma only where the
    compiler sees the buffers differ (`cur`: the same buffer, a race the kernel would have)"""
    cuda = emit_cuda(tmp_path, pipelined_source("half", next_buffer))
    assert ("en_wg_multiply_sw<64, 2, false>(en_wg_d, en_smem_As + (unsigned)(cur) * (unsigned)sizeof(As[0]), en_smem_Bs + (unsigned)(cur) * (unsigned)sizeof(Bs[0]))" in cuda) == chosen


@pytest.mark.parametrize("pad,a_store,b_store", [
    (8, "en_wg_store<40, 4, 160>", "en_wg_store<72, 8, 144>"),    # the bench: cores spread
    (0, "en_wg_store<32, 4, 128>", "en_wg_store<64, 8, 128>"),    # no room: back to back
    (16, "en_wg_store<48, 4, 160>", "en_wg_store<80, 8, 144>")])
def test_wgmma_core_stride(tmp_path, pad, a_store, b_store):
    """ENIGMA_CUDA_WGMMA=spread, the layout before swizzling: the bytes between the cores of a
    staging row spread so that a quarter warp's 8 chunk stores meet no bank conflict (A: 4
    cores a row, 160; B: 8, 144) where the padding leaves room, and the descriptors say the
    same strides"""
    cuda = emit_cuda(tmp_path, gemm_source("half", pad=pad), ENIGMA_CUDA_WGMMA="spread").split("// ---- end of prelude")[1]
    assert a_store in cuda and b_store in cuda
    a_stride, b_stride = a_store.split(", ")[2].rstrip(">"), b_store.split(", ")[2].rstrip(">")
    assert "en_wg_multiply<%d, %s, %d, %s, 2, false>" % (32 + pad, a_stride, 64 + pad, b_stride) in cuda
    # ENIGMA_CUDA_WGMMA=packed: back to back whatever the padding (to time the spread)
    packed = emit_cuda(tmp_path, gemm_source("half", pad=pad), ENIGMA_CUDA_WGMMA="packed")
    assert "en_wg_multiply<%d, 128, %d, 128, 2, false>" % (32 + pad, 64 + pad) in packed


@pytest.mark.parametrize("bk,a_bytes", [(16, 32), (32, 64), (64, 128)])
def test_wgmma_swizzled_staging(tmp_path, bk, a_bytes):
    """the default staging: each buffer the rows the multiplies read, RB bytes each (A: 2 BK,
    B: 128), swizzled, on 1024 bytes in the wgmma entry point and as the kernel wrote it in the
    others; the stores and the descriptors say the same row bytes"""
    cuda = emit_cuda(tmp_path, gemm_source("half", bk=bk), ENIGMA_CUDA_CPASYNC="0").split("// ---- end of prelude")[1]
    a_elems, b_elems = 64 * a_bytes // 2, bk * 64
    assert ("__shared__ alignas(EN_WG ? 1024 : 16) typename en_pick<(EN_WG > 0), en_array<half, %d>, "
            "en_array<half, %d>>::type As;" % (a_elems, 64 * (bk + 8))) in cuda
    assert ("typename en_pick<(EN_WG > 0), en_array<half, %d>, en_array<half, %d>>::type Bs;"
            % (b_elems, bk * 72)) in cuda
    assert "en_wg_store_sw<%d, %d, 64>(en_smem_As" % (bk + 8, a_bytes) in cuda
    assert "en_wg_store_sw<72, 128, %d>(en_smem_Bs" % bk in cuda
    assert "en_wg_multiply_sw<%d, %d, false>(en_wg_d, en_smem_As, en_smem_Bs)" % (a_bytes, bk // 16) in cuda


@pytest.mark.parametrize("t", ["half", "bfloat"])
def test_wgmma_pipelines_copy_then_multiply(tmp_path, t):
    """the copy-then-multiply form (llama.cpp's and MLX's) in the wgmma entry point: two
    swizzled buffers for the kernel's one, the copy statements once before the loop (slice 0,
    then a wait and a barrier) and in the loop as at the next step, guarded by the loop's own
    condition one step on, ahead of the multiplies of this step's buffer; the barrier between
    copy and multiplies left out (wgmma_pipe.c); the mma.sync entry points keep the kernel
    (one threadgroup a block: test_quad_* cover the quads' deeper pipeline)"""
    cuda = emit_cuda(tmp_path, gemm_source(t), ENIGMA_CUDA_WGMMA_MERGE="0").split("// ---- end of prelude")[1]
    elem = "half" if t == "half" else "bfloat"
    assert "typename en_pick<(EN_WG > 0), en_array<en_array<%s, 2048>, 2>, en_array<%s, 2560>>::type As;" % (elem, elem) in cuda
    wg = cuda.split("if constexpr (EN_WG) {")[1].split(WG_END)[0]
    before, loop = wg.split("while ((k0 < (*K)))", 1)
    assert "const uint en_k_first = k0;" in before
    # the copy is steady (wgmma_pipe.c): slice 0 notes its chunks, the block picks a loop
    assert before.count("en_wg_copy_note_sw<") == 2 and before.count("% 2u) * (unsigned)sizeof(") == 2
    assert "en_wg_copy_wait(); en_wg_proxy_fence(); const bool en_copy_fast = __syncthreads_and(en_copy_ok);" in before
    untested, tested = loop.split("} else { // wgmma: each chunk tested")
    assert "if (en_copy_fast) {" in before.split("\n")[-2] + before.split("\n")[-1]
    for part, copy in ((untested, "en_wg_copy_untested_sw<"), (tested, "en_wg_copy_sw<")):
        ahead = part.split("// wgmma: the copy statements as at the next step")[1].split("en_wg_multiply_sw<")[0]
        assert "const uint en_k_next = k0 + (32u);" in ahead and "const uint k0 = en_k_next;" in ahead
        assert "if ((k0 < (*K)))" in ahead and ahead.count(copy) == 2 and ahead.count("en_wg_copy") == 2
        assert "the barrier before the multiplies" in ahead and "EN_BARRIER" not in ahead
        assert "en_wg_multiply_sw<64, 2, %s>(en_wg_d, en_smem_As + (unsigned)(((k0 - en_k_first) / (32u) + 0u) %% 2u) * (unsigned)sizeof(As[0])" % (
            "true" if t == "bfloat" else "false") in part
    # the kernel as written in the other entry points: its own barrier between copy and multiply
    plain = cuda.split(WG_END)[1]
    assert plain.count("EN_BARRIER();") >= 2 and "en_wg_" not in plain.split("// wgmma: en_wg_blocks")[0]


# where the warpgroup form's branch of a kernel ends and the kernel as written begins
WG_END = "} else\n#endif"


def swizzled(offset, row_bytes):
    """prelude.cuh en_wg_swizzled: address bits 4.. XOR bits 7.. (wgmma's swizzle modes)"""
    return offset ^ (((offset >> 7) & (row_bytes // 16 - 1)) << 4)


@pytest.mark.parametrize("row_bytes", [32, 64, 128])
def test_swizzle_keeps_rows_and_banks(row_bytes):
    """the swizzle moves a chunk only within its own row (so a row's bytes stay together, as a
    copy from global memory needs), is one to one, and spreads the chunk stores of a quarter
    warp (8 consecutive chunks: a row, or rows together) over all 32 banks"""
    rows, chunks = 64, row_bytes // 16
    places = [swizzled(r * row_bytes + j * 16, row_bytes) for r in range(rows) for j in range(chunks)]
    assert sorted(places) == list(range(0, rows * row_bytes, 16))
    for r in range(rows):
        assert {p // row_bytes for p in places[r * chunks:(r + 1) * chunks]} == {r}
    for q in range(0, len(places), 8):
        assert len({(p // 16) % 8 for p in places[q:q + 8]}) == 8


def test_wgmma_moves_and_waits(tmp_path):
    """the accumulators move through 1 KB of shared memory (a whole-tile buffer cost
    threadgroups an SM), and the MMAs are waited for at the barrier after the nest, not in it
    (the chunk stores as written: asynchronous copies off)"""
    cuda = emit_cuda(tmp_path, pipelined_source("half"), ENIGMA_CUDA_CPASYNC="0").split("// ---- end of prelude")[1]
    assert "en_wg_scratch[4][32]" in cuda
    body = cuda.split("en_wg_multiply_sw<")[1]
    stores, rest = body.split("en_wg_wait(en_wg_d); en_wg_proxy_fence(); EN_BARRIER();", 1)
    assert stores.count("en_wg_store_sw<") == 2   # the next slice's stores run beside the MMAs
    assert "en_wg_wait(en_wg_d);" in rest.split("// wgmma: the accumulators back")[1].split("__syncthreads")[0]


def test_wgmma_entry_point(tmp_path):
    """the warpgroup form is an entry point of its own (gemm__en_wg, sm_90a only), so that its
    registers are not the mma.sync form's; the other two entry points keep the kernel as
    written"""
    cuda = emit_cuda(tmp_path, pipelined_source("half"), ENIGMA_CUDA_CPASYNC="0").split("// ---- end of prelude")[1]
    entry = cuda.split('extern "C" __global__ void __launch_bounds__(128, 7) gemm__en_wg(')[1].split("}")[0]
    assert "en_kernel_gemm<false, 1>(" in entry
    assert cuda.rindex("#ifdef EN_WGMMA") < cuda.index("gemm__en_wg(") < cuda.rindex("#endif")
    assert 'void gemm(' in cuda and "en_kernel_gemm<false, 0>(" in cuda
    assert 'void gemm__en_fast(' in cuda and "en_kernel_gemm<true, 0>(" in cuda
    assert "if constexpr (EN_WG) {" in cuda


# the next slice's copy as cp.async (src/cuda/wgmma_copy.c)
def copies(cuda):
    """the asynchronous copies of the warpgroup form: (array, count), and the left-out stores"""
    body = cuda.split("// ---- end of prelude")[1]
    return (body.count("en_wg_copy_sw<40, 64, 64>(en_smem_As + (unsigned)("), body.count("en_wg_copy_sw<72, 128, 32>(en_smem_Bs + (unsigned)("),
            body.count("// wgmma: copied asynchronously at its load"))


def test_cpasync_pipelined(tmp_path):
    """the pipelined form: each next-slice load becomes a cp.async to its store's place in the
    other buffer, issued at the load; the stores are left out; the copies are waited for
    before every barrier (before the proxy fence); 8 threadgroups an SM (64 registers)"""
    cuda = emit_cuda(tmp_path, pipelined_source("half"))
    assert copies(cuda) == (1, 1, 2)
    body = cuda.split("// ---- end of prelude")[1]
    assert "en_wg_copy_sw<40, 64, 64>(en_smem_As + (unsigned)((cur ^ 1u)) * (unsigned)sizeof(As[0])" in body
    # issued before the nest, the place computed from the store loop's index bound to the load's
    before_nest = body.split("en_wg_multiply_sw<")[0].split("if constexpr (EN_WG) {")[1]
    assert before_nest.count("en_wg_copy_sw<") == 2
    assert body.count("en_wg_copy_wait(); en_wg_wait(en_wg_d); en_wg_proxy_fence(); EN_BARRIER();") == 2
    assert "en_wg_copy_wait(); en_wg_wait(en_wg_d);\n" in body   # after the K loop too
    assert '__launch_bounds__(128, 8) gemm__en_wg(' in body
    # the prelude's copy is cp.async.cg of 16 bytes, and the wait is wait_all
    assert "cp.async.cg.shared.global [%0], [%1], 16;" in cuda and "cp.async.wait_all;" in cuda


def test_cpasync_switched_off(tmp_path):
    """ENIGMA_CUDA_CPASYNC=0: the loads and stores as before, 7 threadgroups an SM"""
    cuda = emit_cuda(tmp_path, pipelined_source("half"), ENIGMA_CUDA_CPASYNC="0")
    assert copies(cuda) == (0, 0, 0) and "en_wg_copy_wait()" not in cuda.split("// ---- end of prelude")[1]
    assert "en_wg_multiply" in cuda.split("// ---- end of prelude")[1] and '__launch_bounds__(128, 7) gemm__en_wg(' in cuda


def test_cpasync_register_read_elsewhere(tmp_path):
    """A's register chunk has a second reader: A keeps its load and store, B's are copies"""
    cuda = emit_cuda(tmp_path, pipelined_source("half", peek_register=True))
    assert "en_wg_multiply" in cuda.split("// ---- end of prelude")[1]
    assert copies(cuda) == (0, 1, 1)
    assert cuda.split("// ---- end of prelude")[1].count("en_wg_store_sw<40, 64, 64>(en_smem_As + (unsigned)((cur ^ 1u)) * (unsigned)sizeof(As[0])") == 1


def test_cpasync_not_where_chunks_overlap(tmp_path):
    """A's two chunks of a thread stored to one place (the second wins as written; copies are
    unordered until the wait): A keeps its load and store, B's are copies"""
    src = pipelined_source("half").replace("*(threadgroup uint4 *)(&As[cur ^ 1u][r * AP + k]) = ra[u];",
                                           "*(threadgroup uint4 *)(&As[cur ^ 1u][(tid / 4) * AP + k]) = ra[u];")
    assert "(tid / 4) * AP" in src
    assert copies(emit_cuda(tmp_path, src)) == (0, 1, 1)


@pytest.mark.parametrize("src", ["plain", "unproven_buffer"])
def test_cpasync_not_without_the_pipelined_proof(tmp_path, src):
    """no copies of wgmma_copy.c's kind (a next-slice load and its store after the nest) where
    the stores are not proven to go to the buffer the nest does not read, or where copy and
    multiplies take turns (that form's copies are wgmma_pipe.c's: one statement each, no
    register array)"""
    text = gemm_source("half") if src == "plain" else pipelined_source("half", "(cur + 1u) & 1u")
    cuda = emit_cuda(tmp_path, text)
    assert copies(cuda)[2] == 0   # no load's store left out: no pair of wgmma_copy.c's kind
    body = cuda.split("// ---- end of prelude")[1]
    assert ("en_wg_copy_sw<" in body) == (src == "plain")
    assert "the load and its chunk store as one asynchronous copy" not in body


def test_bench_pipelined_kernels_copy_asynchronously():
    """bench/cuda/gemm_simdgroup.metal: gemm_f16_pipelined and gemm_bf16_pipelined take the
    copies (their A and B next-slice loads), at 8 threadgroups an SM"""
    bench = cli_path().resolve().parents[1] / "bench" / "cuda" / "gemm_simdgroup.metal"
    default = {k: v for k, v in os.environ.items() if k not in ("ENIGMA_CUDA_WGMMA", "ENIGMA_CUDA_CPASYNC")}
    r = subprocess.run([str(cli_path()), "compile", str(bench), "--emit", "cuda"], capture_output=True, text=True,
                       timeout=300, env=default)
    assert r.returncode == 0, r.stderr
    for name in ["gemm_f16_pipelined", "gemm_bf16_pipelined"]:
        template = r.stdout.split("void en_kernel_%s(" % name)[1].split("template <bool EN_FAST")[0]
        assert template.count("en_wg_copy_sw<") == 2, name
        assert "__launch_bounds__(128, 8) %s__en_wg(" % name in r.stdout
    for name in ["gemm_f16", "gemm_bf16"]: # the copy-then-multiply form, pipelined by the compiler
        template = r.stdout.split("void en_kernel_%s(" % name)[1].split("template <bool EN_FAST")[0]
        # before the loop (noting the chunks), and a step ahead in each loop: untested in the
        # quad's two copier roles (one copy each) and for both, tested
        assert [template.count(f) for f in ("en_wg_copy_note_sw<", "en_wg_copy_untested_sw<", "en_wg_copy_sw<")] == [2, 4, 2], name
        assert "__launch_bounds__(128, 8) %s__en_wg(" % name in r.stdout
    r = subprocess.run([str(cli_path()), "compile", str(bench), "--emit", "cuda"], capture_output=True, text=True,
                       timeout=300, env={**default, "ENIGMA_CUDA_CPASYNC": "0"})
    assert r.returncode == 0 and "en_wg_copy_sw<" not in r.stdout.split("// ---- end of prelude")[1]


def offline_sm90_env(tmp_path, drop=()):
    """the environment of a build for sm_90 with no device visible (so that a GPU machine
    builds offline too: with a device the library is built for it and says nothing of the
    target), without the variables `drop`"""
    env = {**os.environ, "ENIGMA_CUDA_ARCH": "sm_90", "ENIGMA_CACHE_DIR": str(tmp_path / "cache"),
           "CUDA_VISIBLE_DEVICES": ""}
    for name in drop:
        env.pop(name, None)
    return env


def build_offline_sm90(path, env):
    """`enigma compile PATH --backend cuda` in env (offline_sm90_env); skips where NVRTC is
    missing or a GPU stayed visible"""
    r = subprocess.run([str(cli_path()), "compile", str(path), "--backend", "cuda"], capture_output=True, text=True,
                       timeout=300, env=env)
    if "NVRTC" not in r.stdout and ("NVRTC" in r.stderr or "not found" in r.stderr):
        pytest.skip("NVRTC is not installed here")
    if r.returncode == 0 and "NVRTC" not in r.stdout:
        pytest.skip("built for the device here (a GPU stayed visible): the tests above run the wgmma form")
    return r


def test_cpasync_compiles_for_sm90a(tmp_path):
    """NVRTC builds the pipelined warpgroup form with its asynchronous copies for sm_90a"""
    path = tmp_path / "kernel.metal"
    path.write_text(pipelined_source("bfloat", peek_register=True) + pipelined_source("half").replace(
        "kernel void gemm(", "kernel void gemm2(").replace(HEADER, ""))
    env = offline_sm90_env(tmp_path, drop=["ENIGMA_CUDA_CPASYNC"])
    r = subprocess.run([str(cli_path()), "compile", str(path), "--emit", "cuda"], capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 0 and r.stdout.count("en_wg_copy_sw<") >= 3, r.stderr
    r = build_offline_sm90(path, env)
    assert r.returncode == 0, r.stderr
    assert "compiled by NVRTC for sm_90a" in r.stdout


def test_float_gemm_keeps_mma_sync(tmp_path):
    assert "en_wg_multiply" not in emit_cuda(tmp_path, gemm_source("float")).split("// ---- end of prelude")[1]


def bench_wgmma_kernels(env=None):
    """the kernels of bench/cuda/gemm_simdgroup.metal that the cuda backend emits in the
    warpgroup form (each has a block table), sorted"""
    bench = cli_path().resolve().parents[1] / "bench" / "cuda" / "gemm_simdgroup.metal"
    r = subprocess.run([str(cli_path()), "compile", str(bench), "--emit", "cuda"], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    return sorted(line.split("en_wg_blocks_")[1].split("[")[0] for line in r.stdout.splitlines()
                  if line.startswith("// wgmma: en_wg_blocks_"))


def test_bench_kernels_chosen():
    """bench/cuda/gemm_simdgroup.metal: the half and bfloat kernels, plain and pipelined (not
    prefetch2: two nests a step; not wide: 8 SIMD groups; not float)"""
    assert bench_wgmma_kernels() == ["gemm_bf16", "gemm_bf16_pipelined", "gemm_f16", "gemm_f16_pipelined"]


def test_default_takes_the_pipelined_form(tmp_path):
    """without ENIGMA_CUDA_WGMMA: wgmma where the next slice's copy runs beside the MMAs (faster
    than mma.sync on an H100), and where copy and multiplies take turns as the compiler
    pipelines them (wgmma_pipe.c); with copies switched off that form keeps mma.sync (as
    written it is slower on wgmma)"""
    default = {k: v for k, v in os.environ.items() if k != "ENIGMA_CUDA_WGMMA"}
    for src, chosen in [(pipelined_source("half"), True), (gemm_source("half"), True)]:
        path = tmp_path / "kernel.metal"
        path.write_text(src)
        r = subprocess.run([str(cli_path()), "compile", str(path), "--emit", "cuda"], capture_output=True, text=True,
                           timeout=120, env=default)
        assert r.returncode == 0, r.stderr
        assert ("en_wg_multiply" in r.stdout.split("// ---- end of prelude")[1]) == chosen
    assert bench_wgmma_kernels(default) == ["gemm_bf16", "gemm_bf16_pipelined", "gemm_f16", "gemm_f16_pipelined"]
    # with copies switched off the copy-then-multiply form keeps mma.sync (wgmma measured slower)
    assert bench_wgmma_kernels({**default, "ENIGMA_CUDA_CPASYNC": "0"}) == ["gemm_bf16_pipelined", "gemm_f16_pipelined"]


def test_wgmma_compiles_for_sm90a(tmp_path):
    """NVRTC builds the warpgroup form for sm_90a (where NVRTC is installed)"""
    path = tmp_path / "kernel.metal"
    path.write_text(gemm_source("half"))
    env = offline_sm90_env(tmp_path)
    r = build_offline_sm90(path, env)
    assert r.returncode == 0, r.stderr
    assert "compiled by NVRTC for sm_90a" in r.stdout
    env["ENIGMA_CUDA_WGMMA"] = "0"
    r = subprocess.run([str(cli_path()), "compile", str(path), "--backend", "cuda"], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0 and "compiled by NVRTC for sm_90:" in r.stdout, r.stdout + r.stderr


# quads: four threadgroups (2x2 in the grid) as one block that stages each slice once
# (src/cuda/wgmma_merge.c); the cuda driver takes them for an even number of threadgroups
# along x and y (the 4x4 and 4x2 grids of SIZES), one threadgroup a block otherwise (3x2)
def transposed_raster(src):
    """the tile's row from tg.x and its column from tg.y: A's slices are those of a column of
    the grid, B's those of a row (the quad shares them the other way round)"""
    return src.replace("const uint row0 = tg.y * 64, col0 = tg.x * 64;", "const uint row0 = tg.x * 64, col0 = tg.y * 64;")


def diagonal_raster(src):
    """the tile's column from tg.x + tg.y: B's slices differ along both x and y, so no quad"""
    return src.replace("const uint row0 = tg.y * 64, col0 = tg.x * 64;",
                       "const uint row0 = tg.y * 64, col0 = ((tg.x + tg.y) % (N / 64)) * 64;")


def quad_entry(cuda):
    """the quad's entry point of kernel gemm, or None"""
    body = cuda.split("// ---- end of prelude")[1]
    head = 'extern "C" __global__ void __launch_bounds__(512, 2) gemm__en_wq('
    return body.split(head)[1].split("}")[0] if head in body else None


@pytest.mark.parametrize("t", ["half", "bfloat"])
def test_quad_stages_each_slice_once(tmp_path, t):
    """the copy-then-multiply form has a quad's entry point: A's staging one a row of the
    quad (x + 2 y = en_q: en_q >> 1), B's one a column (en_q & 1), in dynamic shared memory,
    filled by the threadgroup on the quad's diagonal (A) and off it (B); six buffers, a barrier
    every second step, three slices copied ahead, one step's MMAs left running past a barrier
    (a single threadgroup keeps two buffers, a barrier a step, one slice ahead, the MMAs
    waited for)"""
    cuda = emit_cuda(tmp_path, gemm_source(t))
    entry = quad_entry(cuda)
    assert entry is not None and "en_kernel_gemm<false, 2>(" in entry
    body = cuda.split("// ---- end of prelude")[1]
    assert "auto &As = en_wg_staging<EN_WG, en_staging_As>(As_en_own, 0u + (en_q >> 1) * (unsigned)sizeof(en_staging_As)); // in a quad, one a row of it" in body
    assert "auto &Bs = en_wg_staging<EN_WG, en_staging_Bs>(Bs_en_own, 49152u + (en_q & 1u) * (unsigned)sizeof(en_staging_Bs)); // in a quad, one a column of it" in body
    assert ("constexpr unsigned en_stages = EN_WG == 2 ? 6u : 2u, en_ahead = EN_WG == 2 ? 3u : 1u, "
            "en_steps = EN_WG == 2 ? 2u : 1u;") in body
    assert "constexpr int en_mma_depth = EN_WG == 2 ? 1 : 0;" in body
    wg = body.split("if constexpr (EN_WG) {")[1].split(WG_END)[0]
    for form in ("note", "untested", ""):  # before the loop, in the untested loop and in the tested one
        name = "en_wg_copy_%s_sw" % form if form else "en_wg_copy_sw"
        assert wg.count("if (en_wg_copier<EN_WG, 1>(en_q)) %s<40, 64, 64>(en_smem_As + (unsigned)(" % name) == 1, form
        assert wg.count("if (en_wg_copier<EN_WG, 2>(en_q)) %s<72, 128, 32>(en_smem_Bs + (unsigned)(" % name) == 1, form
    loop = wg.split("while ((k0 < (*K)))", 1)[1]
    assert "const uint en_k_next = k0 + en_ahead * (32u);" in loop
    assert "en_wg_copy_wait_group<en_ahead - en_steps>(); en_wg_proxy_fence(); const bool en_copy_fast = __syncthreads_and(en_copy_ok);" in body
    assert ("if (en_steps == 1u || (k0 - en_k_first) / (32u) % en_steps == en_steps - 1u) { "
            "en_wg_copy_wait_group<en_ahead - en_steps>(); en_wg_wait_group<en_mma_depth>(en_wg_d); en_wg_proxy_fence(); "
            "EN_BARRIER(); }") in loop
    # the position attributes in a quad: the threadgroup's own, not the block's
    assert "const uint2 tg = uint2{(uint)(en_b.x), (uint)(en_b.y)};" in body


def test_quad_shares_along_the_kernels_axes(tmp_path):
    """with the tile's row from tg.x, A's slices are shared by a column of the quad and B's by
    a row: which threadgroups share is found, not assumed"""
    body = emit_cuda(tmp_path, transposed_raster(gemm_source("half"))).split("// ---- end of prelude")[1]
    assert "(As_en_own, 0u + (en_q & 1u) * " in body and "(Bs_en_own, 49152u + (en_q >> 1) * " in body
    assert "en_wg_copier<EN_WG, 2>(en_q)) en_wg_copy_sw<40, 64, 64>(en_smem_As + (unsigned)(" in body


def barrier_under_position(src):
    """a barrier after the K loop that only the threadgroups of even x pass"""
    return src.replace("    for (short i = 0; i < 4; i++)\n        for (short j = 0; j < 4; j++)\n            simdgroup_store(",
                       "    if (tg.x % 2 == 0) threadgroup_barrier(mem_flags::mem_threadgroup);\n"
                       "    for (short i = 0; i < 4; i++)\n        for (short j = 0; j < 4; j++)\n            simdgroup_store(", 1)


def device_store_first(src):
    """a device store before the K loop: another threadgroup's loads could see it"""
    return src.replace("    for (uint k0 = 0; k0 < K; k0 += BK) {{".replace("{{", "{"),
                       "    if (tid == 0) C[(tg.y * (N / 64) + tg.x)] = 0.0f;\n    for (uint k0 = 0; k0 < K; k0 += BK) {", 1)


@pytest.mark.parametrize("change,why", [
    (diagonal_raster, "B's slices differ along x and y"),
    (barrier_under_position, "a barrier under a condition on the position"),
    (device_store_first, "a device store before the K loop ends"),
])
def test_quad_not_proven(tmp_path, change, why):
    """the warpgroup form stays, one threadgroup a block, where a quad's proof fails: %s"""
    src = change(gemm_source("half"))
    assert src != gemm_source("half"), why
    cuda = emit_cuda(tmp_path, src)
    assert "gemm__en_wg(" in cuda, why
    assert quad_entry(cuda) is None and "en_wg_copier" not in cuda.split("// ---- end of prelude")[1], why


def test_quad_not_for_the_hand_pipelined_form_or_when_switched_off(tmp_path):
    """the hand-pipelined form keeps its own two buffers and one threadgroup a block (as a
    quad it measured slower); ENIGMA_CUDA_WGMMA_MERGE=0 keeps every kernel so"""
    assert quad_entry(emit_cuda(tmp_path, pipelined_source("half"))) is None
    assert "gemm__en_wg(" in emit_cuda(tmp_path, pipelined_source("half"))
    assert quad_entry(emit_cuda(tmp_path, gemm_source("half"), ENIGMA_CUDA_WGMMA_MERGE="0")) is None


@pytest.mark.parametrize("raster", [transposed_raster, diagonal_raster])
@pytest.mark.parametrize("m,n,k", [(256, 128, 96), (128, 128, 64)])
def test_gemm_rasters(tmp_path, raster, m, n, k):
    """the GEMM with its tiles placed by other rasters: transposed (a quad shares A along y),
    diagonal (no quad); exact on every backend"""
    rng = new_rng()
    a, b = sixteenths(rng, (m, k)), sixteenths(rng, (k, n))
    ins = {"A": stored("half", a), "B": stored("half", b), "C": garbage(rng, (m, n)), "M": str(m), "N": str(n), "K": str(k)}
    groups = (m // 64, n // 64, 1) if raster is transposed_raster else (n // 64, m // 64, 1)
    got = run(tmp_path, raster(gemm_source("half")), ins, ["C"], threadgroups=groups, threads=128)
    exact(got["C"], (a @ b).astype(np.float32), "C")


def step_counted(src):
    """a statement of the K loop beside the copy and the nest (a step count the C store reads):
    the quad's barrier every second step is proven only for a loop of nothing else"""
    src = src.replace("    for (uint k0 = 0; k0 < K; k0 += BK) {", "    uint steps = 0;\n    for (uint k0 = 0; k0 < K; k0 += BK) {", 1)
    src = src.replace("        \n        threadgroup_barrier(mem_flags::mem_threadgroup);\n    }",
                      "        steps += 1;\n        threadgroup_barrier(mem_flags::mem_threadgroup);\n    }", 1)
    return src.replace("col0 + sc + j * 8, N);", "col0 + sc + j * 8 + (steps - K / BK), N);", 1)


def test_quad_needs_a_loop_of_copy_and_multiplies(tmp_path):
    """rule 6 of wgmma_merge.c: with another statement in the K loop no quad (the warpgroup
    form stays), and the kernel runs exact"""
    src = step_counted(gemm_source("half"))
    assert "steps += 1;" in src and "(steps - K / BK)" in src
    cuda = emit_cuda(tmp_path, src)
    assert "gemm__en_wg(" in cuda and quad_entry(cuda) is None
    a, b, got = run_gemm(tmp_path, "half", 128, 128, 96, src=src)
    exact(got["C"], (a @ b).astype(np.float32), "C")


# ---- steady copies (wgmma_pipe.c: plan->copy_steady) ------------------------------------------
A_SOURCE = "*(device const uint4 *)(A + (row0 + r) * K + k0 + k);"
B_LOOP = "for (ushort c = tid; c < BK * 64 / PER_CHUNK; c += 128) {"


def a_rows_apart(src, stride):
    """A's rows `stride` elements apart (K + 4: every other row's chunks 8 bytes off 16)"""
    out = src.replace(A_SOURCE, "*(device const uint4 *)(A + (row0 + r) * (%s) + k0 + k);" % stride, 1)
    assert out != src
    return out


def a_through_min(src):
    """the same addresses through min(k0, K - BK): k0 under a call, not a polynomial in it"""
    out = src.replace(A_SOURCE, "*(device const uint4 *)(A + (row0 + r) * K + min(k0, K - BK) + k);", 1)
    assert out != src
    return out


def b_loop_reads_k(src):
    """B's copy loop bounded by an expression of k0 (always 256 here): the chunks could change"""
    out = src.replace(B_LOOP, "for (ushort c = tid; c < min(BK * 64 / PER_CHUNK, int(K - k0) + 256); c += 128) {", 1)
    assert out != src
    return out


def steady(cuda):
    """whether the warpgroup form notes the first slices' chunks and has the untested loop"""
    wg = cuda.split("// ---- end of prelude")[1].split("if constexpr (EN_WG) {")[1].split(WG_END)[0]
    noted = "__syncthreads_and(en_copy_ok)" in wg and "en_wg_copy_note_sw<" in wg
    assert noted == ("if (en_copy_fast) {" in wg) == ("en_wg_copy_untested_sw<" in wg)
    return noted


@pytest.mark.parametrize("change,is_steady", [
    (lambda s: s, True),
    (lambda s: a_rows_apart(s, "K + 4u"), True),  # steady; the slices before the loop find them unaligned
    (a_through_min, False),
    (b_loop_reads_k, False),
])
def test_steady_copy_rules(tmp_path, change, is_steady):
    """a copy is steady where k0 is read only by the chunks' sources, as a polynomial in it (its
    step, BK 16 or 32, a multiple of 16, as every wgmma slice's is); else each chunk is tested
    at every step"""
    for bk in (16, 32):
        assert steady(emit_cuda(tmp_path, change(gemm_source("half", bk=bk)))) == is_steady, bk


@pytest.mark.parametrize("t", ["half", "bfloat"])
@pytest.mark.parametrize("m,n,k", [(128, 128, 96), (64, 192, 64)])
def test_gemm_unaligned_rows(tmp_path, t, m, n, k):
    """A's rows K + 4 elements apart: every other row's 16-byte chunks unaligned, which the
    slices before the loop find, so the tested loop runs; exact on every backend"""
    rng = new_rng()
    a = sixteenths(rng, (m, k + 4))
    b = sixteenths(rng, (k, n))
    ins = {"A": stored(t, a), "B": stored(t, b), "C": garbage(rng, (m, n)), "M": str(m), "N": str(n), "K": str(k)}
    got = run(tmp_path, a_rows_apart(gemm_source(t), "K + 4u"), ins, ["C"], threadgroups=(n // 64, m // 64, 1), threads=128)
    exact(got["C"], (a[:, :k] @ b).astype(np.float32), "C")


@pytest.mark.parametrize("change", [a_through_min, b_loop_reads_k])
def test_gemm_unsteady_copies(tmp_path, change):
    """the copies that are not steady give the same products (each chunk tested at every step)"""
    m, n, k = 128, 128, 96
    rng = new_rng()
    a, b = sixteenths(rng, (m, k)), sixteenths(rng, (k, n))
    ins = {"A": stored("half", a), "B": stored("half", b), "C": garbage(rng, (m, n)), "M": str(m), "N": str(n), "K": str(k)}
    got = run(tmp_path, change(gemm_source("half")), ins, ["C"], threadgroups=(n // 64, m // 64, 1), threads=128)
    exact(got["C"], (a @ b).astype(np.float32), "C")


def role_loop(cuda, share):
    """the K loop a quad runs for the threadgroups that fill one staging array (share: its
    en_wg_copier's), or None"""
    head = "(EN_WG == 2 && en_copy_fast && en_wg_copier<EN_WG, %d>(en_q)) { // wgmma: the threadgroups that fill " % share
    wg = cuda.split("// ---- end of prelude")[1].split("if constexpr (EN_WG) {")[1].split(WG_END)[0]
    return wg.split(head)[1].split("} else if")[0] if head in wg else None


@pytest.mark.parametrize("raster,a_share,b_share", [(lambda s: s, 1, 2), (transposed_raster, 2, 1)])
def test_steady_copy_roles(tmp_path, raster, a_share, b_share):
    """a quad whose A and B are filled by different threadgroups runs a loop for each role, with
    that role's copies only and no copier test (nvcc would predicate both roles into one stream);
    the loop for both stays (a single threadgroup's), and $ENIGMA_CUDA_STEADY_COPY=1 keeps it alone"""
    cuda = emit_cuda(tmp_path, raster(gemm_source("half")))
    a_loop, b_loop = role_loop(cuda, a_share), role_loop(cuda, b_share)
    assert a_loop is not None and b_loop is not None
    assert a_loop.count("en_wg_copy_untested_sw<40, 64, 64>(en_smem_As") == 1 and "en_smem_Bs + " not in a_loop.split("en_wg_multiply_sw")[0]
    assert b_loop.count("en_wg_copy_untested_sw<72, 128, 32>(en_smem_Bs") == 1 and "en_smem_As + " not in b_loop.split("en_wg_multiply_sw")[0]
    assert "en_wg_copier" not in a_loop + b_loop
    # the warps of the quad meet at the barrier from different loops: barrier.sync, not the aligned form
    assert "EN_BARRIER_DIVERGENT(); }" in a_loop and "EN_BARRIER_DIVERGENT(); }" in b_loop and "EN_BARRIER()" not in a_loop + b_loop
    assert "} else if (en_copy_fast) {" in cuda
    one = emit_cuda(tmp_path, raster(gemm_source("half")), ENIGMA_CUDA_STEADY_COPY="1")
    assert role_loop(one, a_share) is None and role_loop(one, b_share) is None and steady(one)
    assert not steady(emit_cuda(tmp_path, raster(gemm_source("half")), ENIGMA_CUDA_STEADY_COPY="0"))


def wg_bodies(cuda):
    """the warpgroup forms' body (EN_WG 1 and 2) of the kernel"""
    return cuda.split("// ---- end of prelude")[1].split("if constexpr (EN_WG) {")[1].split(WG_END)[0]


def test_quad_moves_accumulators_in_one_round(tmp_path):
    """a quad whose staging holds its four 64x64 float tiles moves the accumulators through it in
    one round each way (2 barriers, not 32), every SIMD group's 16 blocks; a single threadgroup
    (EN_WG 1) keeps the 16 rounds through 1 KB"""
    wg = wg_bodies(emit_cuda(tmp_path, gemm_source("half")))
    into, back = wg.split("// wgmma: the accumulators back to the SIMD groups")
    for side, call in ((into, "en_wg_tile_put(en_tile, "), (back, " = en_wg_tile_get(en_tile, ")):
        quad, rounds = side.split("if constexpr (EN_WG == 2) {")[1].split("} else {", 1)
        assert quad.count(call) == 64 and quad.count("__syncthreads()") == 2, quad
        # each of the tile's 64 8x8 blocks once
        blocks = sorted(int(b) for b in re.findall(r"en_wg_tile_(?:put|get)\(en_tile, (\d+)", quad))
        assert blocks == list(range(64)), blocks
        assert rounds.count("en_wg_to_registers" if side is into else "en_wg_from_registers") == 16
    # the MMAs' reads of the staging done, and made so for the generic stores, before it is reused
    assert "en_wg_proxy_fence(); __syncthreads(); en_wg_tile_from_registers(en_wg_d, en_tile);" in back
    # BK 16: the staging (6 buffers of 2 KB a row or column) is smaller than the four tiles
    small = wg_bodies(emit_cuda(tmp_path, gemm_source("half", bk=16)))
    assert "en_wg_tile_put" not in small and small.count("en_wg_to_registers") == 16


UNROLL = "#pragma unroll // a few trips indexing the thread's array: kept in registers"


def test_counted_loops_over_private_arrays_unroll(tmp_path):
    """a loop of a few constant trips that indexes one of the thread's arrays with its counter
    goes out with #pragma unroll (nvcc then keeps the array in registers: the GEMM's 4x4
    accumulators stayed in local memory without it); loops with a run-time bound, more than 16
    trips, a counter the body assigns, or no private array indexed by it are left to nvcc"""
    src = """#include <metal_stdlib>
using namespace metal;
kernel void k(device float *out [[buffer(0)]], constant uint &n [[buffer(1)]], uint t [[thread_position_in_grid]]) {
    float acc[4][4];
    float big[32];
    for (short i = 0; i < 4; i++)
        for (short j = 0; j < 4; j++) acc[i][j] = float(t + i * 4 + j);
    for (int i = 0; i < 32; i++) big[i] = float(i);
    float s = 0.0f;
    for (uint i = 0; i < n; i++) s += acc[i % 4][0];
    for (int i = 0; i < 4; i++) s += float(i);
    for (int i = 0; i < 4; i++) { s += acc[i][1]; i += 0; }
    for (int i = 0; i < 4; i++) out[t * 4 + i] = acc[i][2] + big[i * 8] + s;
}
"""
    cuda = emit_cuda(tmp_path, src).split("// ---- end of prelude")[1]
    body = cuda.split("en_kernel_k")[1]
    loops = body.split("while (")[1:]
    marked = [UNROLL in chunk[-len(UNROLL) - 40:] for chunk in body.split("while (")[:-1]]
    # the order of the loops: i (acc), j (acc), big (32 trips), n (run-time), plain, assigned counter, out
    assert len(loops) == 7, body
    assert marked == [True, True, False, False, False, False, True], marked


def nvcc():
    """nvcc from CUDA's usual install path or the PATH, else None"""
    return shutil.which("nvcc", path="/usr/local/cuda/bin" + os.pathsep + os.environ.get("PATH", ""))


@pytest.mark.skipif(nvcc() is None, reason="nvcc (to read ptxas's resource use) is not installed")
def test_gemm_entry_points_keep_accumulators_in_registers(tmp_path):
    """the issue's GEMM (bench/cuda/gemm_simdgroup.metal's gemm_f16): its warpgroup and quad entry
    points use no local memory (ptxas -v: no stack frame, no spills) and store C a pair at a time
    (st.v2)"""
    bench = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "cuda", "gemm_simdgroup.metal")
    cuda = tmp_path / "gemm.cu"
    r = subprocess.run([str(cli_path()), "compile", bench, "--emit", "cuda", "-k", "gemm_f16", "-o", str(cuda)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([nvcc(), "-cubin", "-arch=sm_90a", "-std=c++17", "-O3", "-Xptxas", "-v", "-o",
                        str(tmp_path / "gemm.cubin"), str(cuda)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    info = r.stdout + r.stderr
    for entry in ("__en_wq", "__en_wg"):
        props = [p for p in info.split("Function properties for ")[1:] if p.split("\n")[0].strip().endswith(entry)]
        assert props, info[-3000:]
        assert "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" in props[0], props[0]
    ptx = subprocess.run([nvcc(), "-ptx", "-arch=sm_90a", "-std=c++17", "-O3", "-o", "-", str(cuda)],
                         capture_output=True, text=True, timeout=600)
    assert ptx.returncode == 0 and "st.v2.b32" in ptx.stdout
