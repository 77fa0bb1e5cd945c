"""Every DSL form, run on the cpu backend and compared with NumPy references computed
independently (float64 where it matters) from fresh random inputs."""

import numpy as np
import pytest

import enigma
from enigma_testing import run_kernel


def _n(rng, n, lo=-4.0, hi=4.0):
    # random floats, none of them zero
    x = rng.uniform(lo, hi, n)
    x[np.abs(x) < 1e-3] = 0.5
    return x.astype(np.float32)


# ---- arithmetic and types -------------------------------------------------------------

def test_float_arithmetic(rt, rng):
    @enigma.kernel
    def k(A: enigma.f32, B: enigma.f32, C: enigma.f32):
        i = enigma.thread_position_in_grid
        a = A[i]
        b = B[i]
        C[i] = (a + b) * 2.0 - a / b + (-a) * 0.25 + 3 % b + a % 1.5 - 1.0 / b + b ** 2

    n = 1000
    a, b = _n(rng, n), _n(rng, n, 0.5, 3.0)
    out = run_kernel(rt, k, [a, b], np.float32, n, (n, 1, 1), (128, 1, 1))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = ((a64 + b64) * 2 - a64 / b64 - a64 * 0.25 + np.fmod(3, b64) + np.fmod(a64, 1.5)
           - 1 / b64 + b64 ** 2)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-4)


def test_signed_integer_arithmetic(rt, rng):
    @enigma.kernel
    def k(A: enigma.i32, B: enigma.i32, C: enigma.i32):
        i = enigma.thread_position_in_grid
        a = A[i]
        b = B[i]
        C[8 * i + 0] = a + b * 3 - 7
        C[8 * i + 1] = a / b          # MSL (C) division: truncates
        C[8 * i + 2] = a % b          # MSL (C) remainder: sign of a
        C[8 * i + 3] = a // b         # Python floor division
        C[8 * i + 4] = (a & b) | (a ^ 0x5A5A)
        C[8 * i + 5] = (a << 3) >> 2
        C[8 * i + 6] = -a + (~b)
        C[8 * i + 7] = enigma.where(a > b, a, b) + enigma.abs(a) + enigma.min(a, b) * enigma.max(a, b)

    n = 777
    a = rng.integers(-100000, 100000, n).astype(np.int32)
    b = rng.integers(-500, 500, n).astype(np.int32)
    b[b == 0] = 7
    out = run_kernel(rt, k, [a, b], np.int32, 8 * n, (n, 1, 1), (64, 1, 1)).reshape(n, 8)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    q = np.trunc(a64 / b64).astype(np.int64)
    ref = np.stack([a64 + b64 * 3 - 7, q, a64 - q * b64, np.floor_divide(a64, b64),
                    (a64 & b64) | (a64 ^ 0x5A5A), (a64 << 3) >> 2, -a64 + ~b64,
                    np.maximum(a64, b64) + np.abs(a64) + np.minimum(a64, b64) * np.maximum(a64, b64)],
                   axis=1)
    ref = ((ref + 2 ** 31) % 2 ** 32 - 2 ** 31)  # int32 wrap-around
    np.testing.assert_array_equal(out, ref)


def test_unsigned_arithmetic_and_shifts(rt, rng):
    @enigma.kernel
    def k(A: enigma.u32, B: enigma.u32, C: enigma.u32):
        i = enigma.thread_position_in_grid
        a = A[i]
        b = B[i]
        C[4 * i + 0] = a * b + 5
        C[4 * i + 1] = a / b + a % b
        C[4 * i + 2] = (a >> 3) ^ (b << 4)
        C[4 * i + 3] = a - b

    n = 500
    a = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(1, 2 ** 16, n).astype(np.uint32)
    out = run_kernel(rt, k, [a, b], np.uint32, 4 * n, (n, 1, 1), (32, 1, 1)).reshape(n, 4)
    a64, b64 = a.astype(np.uint64), b.astype(np.uint64)
    m = np.uint64(2 ** 32)
    ref = np.stack([(a64 * b64 + 5) % m, (a64 // b64 + a64 % b64) % m,
                    ((a64 >> 3) ^ (b64 << 4)) % m, (a64 + m - b64) % m], axis=1)
    np.testing.assert_array_equal(out.astype(np.uint64), ref)


@pytest.mark.parametrize("t", [enigma.i8, enigma.u8, enigma.i16, enigma.u16, enigma.i64,
                               enigma.u64])
def test_integer_types(rt, rng, t):
    @enigma.kernel
    def k(A: t, B: t):
        i = enigma.thread_position_in_grid
        B[i] = A[i] * 3 + 1

    n = 300
    info = np.iinfo(t.np)
    # long * 3 must not overflow (undefined behaviour for signed types); others wrap
    lo, hi = (-(2 ** 60), 2 ** 60) if t is enigma.i64 else (info.min, info.max)
    a = rng.integers(lo, hi, n, endpoint=True, dtype=t.np)
    out = run_kernel(rt, k, [a], t.np, n, (n, 1, 1), (100, 1, 1))
    ref = (a.astype(object) * 3 + 1)
    bits = 1 << (8 * t.size)
    ref = np.array([(int(v) - info.min) % bits + info.min for v in ref], dtype=t.np)
    np.testing.assert_array_equal(out, ref)


def test_half(rt, rng):
    @enigma.kernel
    def k(A: enigma.f16, B: enigma.f16):
        i = enigma.thread_position_in_grid
        B[i] = A[i] * 1.5 + enigma.f16(0.25)

    n = 256
    a = _n(rng, n).astype(np.float16)
    out = run_kernel(rt, k, [a], np.float16, n, (n, 1, 1), (64, 1, 1))
    ref = a.astype(np.float64) * 1.5 + 0.25
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=2e-3, atol=2e-3)


def test_bfloat(rt, rng):
    @enigma.kernel
    def k(A: enigma.bf16, B: enigma.f32, C: enigma.bf16):
        i = enigma.thread_position_in_grid
        C[i] = enigma.bf16(enigma.f32(A[i]) * B[i])

    n = 256
    a = _n(rng, n)
    b = _n(rng, n)
    raw = run_kernel(rt, k, [enigma.to_bfloat16(a), b], np.uint16, n, (n, 1, 1), (64, 1, 1))
    out = enigma.from_bfloat16(raw).astype(np.float64)
    a_bf = enigma.from_bfloat16(enigma.to_bfloat16(a)).astype(np.float64)
    ref = a_bf * b.astype(np.float64)
    np.testing.assert_allclose(out, ref, rtol=1e-2, atol=1e-2)


def test_bool_buffer_and_casts(rt, rng):
    @enigma.kernel
    def k(A: enigma.f32, P: enigma.bool, I: enigma.i32, U: enigma.u32):
        i = enigma.thread_position_in_grid
        P[i] = A[i] > 0.0
        I[i] = enigma.i32(A[i] * 10.0)
        U[i] = enigma.u32(enigma.i32(P[i])) + enigma.u32(7)

    n = 200
    a = _n(rng, n)
    c = enigma.compile(k)
    # P, I, U are all written: pass inputs for every parameter and pick the outputs
    p0 = np.zeros(n, dtype=np.bool_)
    i0 = np.zeros(n, dtype=np.int32)
    u0 = np.zeros(n, dtype=np.uint32)
    got_i = np.frombuffer(rt.execute(c, inputs=[a, p0, i0, u0], output="I", grid=(n,),
                                     threads=(50,)), dtype=np.int32)
    np.testing.assert_array_equal(got_i, np.trunc(a.astype(np.float64) * 10).astype(np.int32))
    got_p = np.frombuffer(rt.execute(c, inputs=[a, p0, i0, u0], output="P", grid=(n,),
                                     threads=(50,)), dtype=np.bool_)
    np.testing.assert_array_equal(got_p, a > 0)


def test_math_functions(rt, rng):
    @enigma.kernel
    def k(A: enigma.f32, B: enigma.f32, C: enigma.f32):
        i = enigma.thread_position_in_grid
        a = A[i]
        b = B[i]
        C[12 * i + 0] = enigma.exp(a) + enigma.log(b)
        C[12 * i + 1] = enigma.sqrt(b) + enigma.rsqrt(b)
        C[12 * i + 2] = enigma.sin(a) * enigma.cos(b)
        C[12 * i + 3] = enigma.tanh(a)
        C[12 * i + 4] = enigma.pow(b, a)
        C[12 * i + 5] = enigma.fmin(a, b) + enigma.fmax(a, b)
        C[12 * i + 6] = enigma.floor(a) + enigma.ceil(b) + enigma.trunc(a) + enigma.round(b)
        C[12 * i + 7] = enigma.abs(a) + enigma.fabs(b)
        C[12 * i + 8] = enigma.clamp(a, -1.0, 1.0)
        C[12 * i + 9] = enigma.atan2(a, b)
        C[12 * i + 10] = enigma.fma(a, b, 1.0) + enigma.mad(a, 2.0, b)
        C[12 * i + 11] = enigma.select(a, b, enigma.isnan(a / a)) + enigma.exp2(a) + enigma.log2(b)

    n = 256
    a = _n(rng, n, -2.0, 2.0)
    b = rng.uniform(0.5, 4.0, n).astype(np.float32)
    out = run_kernel(rt, k, [a, b], np.float32, 12 * n, (n, 1, 1), (64, 1, 1)).reshape(n, 12)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = np.stack([np.exp(a64) + np.log(b64), np.sqrt(b64) + 1 / np.sqrt(b64),
                    np.sin(a64) * np.cos(b64), np.tanh(a64), b64 ** a64,
                    np.minimum(a64, b64) + np.maximum(a64, b64),
                    # MSL round() rounds halves away from zero; b is positive
                    np.floor(a64) + np.ceil(b64) + np.trunc(a64) + np.floor(b64 + 0.5),
                    np.abs(a64) + np.abs(b64), np.clip(a64, -1, 1), np.arctan2(a64, b64),
                    a64 * b64 + 1 + a64 * 2 + b64, a64 + np.exp2(a64) + np.log2(b64)], axis=1)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_comparisons(rt, rng):
    @enigma.kernel
    def k(A: enigma.i32, B: enigma.i32, C: enigma.u32):
        i = enigma.thread_position_in_grid
        a = A[i]
        b = B[i]
        bits = (enigma.u32(enigma.cmp_eq(a, b)) | (enigma.u32(enigma.cmp_ne(a, b)) << 1)
                | (enigma.u32(enigma.cmp_lt(a, b)) << 2) | (enigma.u32(enigma.cmp_le(a, b)) << 3)
                | (enigma.u32(enigma.cmp_gt(a, b)) << 4) | (enigma.u32(enigma.cmp_ge(a, b)) << 5)
                | (enigma.u32(a < 0) << 6) | (enigma.u32((a > 0) & (b > 0)) << 7)
                | (enigma.u32((a > 0) | (b > 0)) << 8)
                | (enigma.u32(enigma.logical_not(a == b)) << 9))
        C[i] = bits

    n = 400
    a = rng.integers(-5, 5, n).astype(np.int32)
    b = rng.integers(-5, 5, n).astype(np.int32)
    out = run_kernel(rt, k, [a, b], np.uint32, n, (n, 1, 1), (64, 1, 1))
    ref = ((a == b) * 1 | (a != b) * 2 | (a < b) * 4 | (a <= b) * 8 | (a > b) * 16
           | (a >= b) * 32 | (a < 0) * 64 | ((a > 0) & (b > 0)) * 128 | ((a > 0) | (b > 0)) * 256
           | (a != b) * 512)
    np.testing.assert_array_equal(out, ref.astype(np.uint32))


def test_scalar_parameters(rt, rng):
    @enigma.kernel
    def axpb(X: enigma.f32, Y: enigma.f32, alpha: enigma.Scalar(enigma.f32),
             beta: enigma.Scalar(enigma.i32), n: enigma.Scalar(enigma.u32)):
        i = enigma.thread_position_in_grid
        with enigma.if_(i < n):
            Y[i] = alpha * X[i] + enigma.f32(beta)

    n = 1000
    x = _n(rng, n)
    alpha, beta = float(rng.uniform(-3, 3)), int(rng.integers(-9, 9))
    # numbers and one-element arrays both work for Scalar parameters
    out = run_kernel(rt, axpb, [x, alpha, np.array([beta], dtype=np.int32), n], np.float32,
                     n, (1024, 1, 1), (256, 1, 1))
    ref = np.float32(alpha) * x.astype(np.float64) + beta
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-5)


def test_in_place_when_every_parameter_has_an_input(rt, rng):
    @enigma.kernel
    def double(A: enigma.f32):
        i = enigma.thread_position_in_grid
        A[i] = A[i] * 2.0

    a = _n(rng, 300)
    before = a.copy()
    out = run_kernel(rt, double, [a], np.float32, 300, (300,), (64,))
    np.testing.assert_array_equal(out, before * 2)
    # the caller's array is the kernel's buffer (no copy), so it holds the result too
    np.testing.assert_array_equal(a, before * 2)


# ---- positions -----------------------------------------------------------------------

def test_positions_3d_with_edge_threadgroups(rt):
    @enigma.kernel
    def pos(Out: enigma.u32):
        gx = enigma.thread_position_in_grid_xyz("x")
        gy = enigma.thread_position_in_grid_xyz("y")
        gz = enigma.thread_position_in_grid.z
        W = enigma.threads_per_grid("x")
        H = enigma.threads_per_grid("y")
        idx = ((gz * H + gy) * W + gx) * 8
        Out[idx + 0] = enigma.thread_position_in_threadgroup("x") + 100 * enigma.thread_position_in_threadgroup("y") + 10000 * enigma.thread_position_in_threadgroup("z")
        Out[idx + 1] = enigma.threadgroup_position_in_grid("x") + 100 * enigma.threadgroup_position_in_grid("y") + 10000 * enigma.threadgroup_position_in_grid(2)
        Out[idx + 2] = enigma.threads_per_threadgroup("x") + 100 * enigma.threads_per_threadgroup("y") + 10000 * enigma.threads_per_threadgroup("z")
        Out[idx + 3] = enigma.threadgroups_per_grid("x") + 100 * enigma.threadgroups_per_grid("y") + 10000 * enigma.threadgroups_per_grid("z")
        Out[idx + 4] = enigma.thread_index_in_threadgroup()
        Out[idx + 5] = enigma.thread_index_in_simdgroup() + 100 * enigma.simdgroup_index_in_threadgroup()
        Out[idx + 6] = enigma.simdgroups_per_threadgroup()
        Out[idx + 7] = gx + 100 * gy + 10000 * gz

    grid, tg = (13, 7, 3), (8, 4, 2)
    W, H, D = grid
    out = run_kernel(rt, pos, [], np.uint32, W * H * D * 8, grid, tg).reshape(D, H, W, 8)
    for z in range(D):
        for y in range(H):
            for x in range(W):
                g = (x // tg[0], y // tg[1], z // tg[2])
                l = (x % tg[0], y % tg[1], z % tg[2])
                # real size of this (possibly edge) threadgroup
                size = tuple(min(tg[d], grid[d] - g[d] * tg[d]) for d in range(3))
                count = tuple(-(-grid[d] // tg[d]) for d in range(3))
                flat = l[0] + size[0] * (l[1] + size[1] * l[2])
                total = size[0] * size[1] * size[2]
                want = [l[0] + 100 * l[1] + 10000 * l[2], g[0] + 100 * g[1] + 10000 * g[2],
                        size[0] + 100 * size[1] + 10000 * size[2],
                        count[0] + 100 * count[1] + 10000 * count[2], flat,
                        flat % 32 + 100 * (flat // 32), -(-total // 32),
                        x + 100 * y + 10000 * z]
                assert list(out[z, y, x]) == want, (x, y, z)


# ---- threadgroup memory and barriers ---------------------------------------------------

def test_threadgroup_alloc_and_barrier_reverse(rt, rng):
    @enigma.kernel
    def rev(A: enigma.f32, B: enigma.f32):
        i = enigma.thread_position_in_grid
        l = enigma.thread_position_in_threadgroup("x")
        size = enigma.threads_per_threadgroup()
        tile = enigma.threadgroup_alloc(enigma.f32, 256)
        tile[l] = A[i]
        enigma.barrier(mem_flags="mem_threadgroup")
        B[i] = tile[size - 1 - l]

    n = 256 * 5
    a = _n(rng, n)
    out = run_kernel(rt, rev, [a], np.float32, n, (n, 1, 1), (256, 1, 1))
    np.testing.assert_array_equal(out, a.reshape(-1, 256)[:, ::-1].ravel())


def test_barrier_flag_forms():
    @enigma.kernel
    def k(A: enigma.f32):
        enigma.barrier(mem_flags="mem_device|mem_threadgroup")
        enigma.barrier(mem_flags=["mem_none"])
        enigma.simdgroup_barrier(mem_flags="mem_threadgroup")
        A[0] = 1.0

    src = k.source
    assert "threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);" in src
    assert "threadgroup_barrier(mem_flags::mem_none);" in src
    assert "simdgroup_barrier(mem_flags::mem_threadgroup);" in src


# ---- SIMD-group and quad-group functions ----------------------------------------------

SIMD_FLOAT_OPS = ["simd_sum", "simd_min", "simd_max", "simd_prefix_inclusive_sum",
                  "simd_prefix_exclusive_sum", "simd_product", "simd_prefix_inclusive_product",
                  "simd_prefix_exclusive_product", "simd_broadcast_first"]


def _group_ref(op, v, width):
    g = v.astype(np.float64).reshape(-1, width)
    if op.endswith("_sum") and "prefix" not in op:
        r = np.repeat(g.sum(1, keepdims=True), width, 1)
    elif op.endswith("_product") and "prefix" not in op:
        r = np.repeat(g.prod(1, keepdims=True), width, 1)
    elif op.endswith("_min"):
        r = np.repeat(g.min(1, keepdims=True), width, 1)
    elif op.endswith("_max"):
        r = np.repeat(g.max(1, keepdims=True), width, 1)
    elif op.endswith("inclusive_sum"):
        r = np.cumsum(g, 1)
    elif op.endswith("exclusive_sum"):
        r = np.cumsum(g, 1) - g
    elif op.endswith("inclusive_product"):
        r = np.cumprod(g, 1)
    elif op.endswith("exclusive_product"):
        r = np.cumprod(g, 1) / g
    elif op.endswith("broadcast_first"):
        r = np.repeat(g[:, :1], width, 1)
    return r.ravel()


@pytest.mark.parametrize("op", SIMD_FLOAT_OPS + [o.replace("simd", "quad") for o in SIMD_FLOAT_OPS])
def test_simd_and_quad_reductions(rt, rng, op):
    fn = getattr(enigma, op)

    @enigma.kernel
    def k(A: enigma.f32, B: enigma.f32):
        i = enigma.thread_position_in_grid
        B[i] = fn(A[i])

    n = 256
    a = rng.uniform(0.8, 1.25, n).astype(np.float32) * rng.choice([-1, 1], n).astype(np.float32)
    out = run_kernel(rt, k, [a], np.float32, n, (n, 1, 1), (128, 1, 1))
    ref = _group_ref(op, a, 32 if op.startswith("simd") else 4)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-4)


def test_simd_bitwise_reductions(rt, rng):
    @enigma.kernel
    def k(A: enigma.u32, B: enigma.u32):
        i = enigma.thread_position_in_grid
        v = A[i]
        B[3 * i] = enigma.simd_and(v)
        B[3 * i + 1] = enigma.simd_or(v)
        B[3 * i + 2] = enigma.simd_xor(v)

    n = 128
    a = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32) | np.uint32(0x10001)
    out = run_kernel(rt, k, [a], np.uint32, 3 * n, (n,), (64,)).reshape(n, 3)
    g = a.reshape(-1, 32)
    for j, f in enumerate((np.bitwise_and, np.bitwise_or, np.bitwise_xor)):
        np.testing.assert_array_equal(out[:, j], np.repeat(f.reduce(g, axis=1), 32))


def test_simd_shuffles(rt, rng):
    @enigma.kernel
    def k(A: enigma.f32, B: enigma.f32):
        i = enigma.thread_position_in_grid
        lane = enigma.thread_index_in_simdgroup()
        v = A[i]
        B[8 * i + 0] = enigma.simd_shuffle(v, (lane * 7 + 3) % 32)
        B[8 * i + 1] = enigma.simd_shuffle_up(v, 3)
        B[8 * i + 2] = enigma.simd_shuffle_down(v, 5)
        B[8 * i + 3] = enigma.simd_shuffle_xor(v, 9)
        B[8 * i + 4] = enigma.simd_shuffle_rotate_up(v, 4)
        B[8 * i + 5] = enigma.simd_shuffle_rotate_down(v, 30)
        B[8 * i + 6] = enigma.simd_broadcast(v, 17)
        B[8 * i + 7] = enigma.quad_shuffle_xor(v, 1) + enigma.quad_broadcast(v, 2)

    n = 128
    a = _n(rng, n)
    out = run_kernel(rt, k, [a], np.float32, 8 * n, (n,), (64,)).reshape(n, 8)
    g = a.reshape(-1, 32)
    L = np.arange(32)
    q = a.reshape(-1, 4)
    up = np.where(L >= 3, np.roll(g, 3, 1), g)
    down = np.where(L < 32 - 5, np.roll(g, -5, 1), g)
    ref = np.stack([g[:, (L * 7 + 3) % 32].ravel(), up.ravel(), down.ravel(), g[:, L ^ 9].ravel(),
                    np.roll(g, 4, 1).ravel(), np.roll(g, -30, 1).ravel(),
                    np.repeat(g[:, 17], 32), (q[:, [1, 0, 3, 2]] + q[:, [2, 2, 2, 2]]).ravel()],
                   axis=1)
    np.testing.assert_array_equal(out, ref.astype(np.float32))


def test_simd_fill_shuffles(rt, rng):
    @enigma.kernel
    def k(A: enigma.f32, F: enigma.f32, B: enigma.f32):
        i = enigma.thread_position_in_grid
        B[2 * i] = enigma.simd_shuffle_and_fill_up(A[i], F[i], 3)
        B[2 * i + 1] = enigma.simd_shuffle_and_fill_down(A[i], F[i], 5)

    n = 64
    a, f = _n(rng, n), _n(rng, n)
    out = run_kernel(rt, k, [a, f], np.float32, 2 * n, (n,), (64,)).reshape(n, 2)
    g, h = a.reshape(-1, 32), f.reshape(-1, 32)
    L = np.arange(32)
    up = np.where(L >= 3, g[:, (L - 3) % 32], h[:, (L - 3) % 32])
    down = np.where(L < 27, g[:, (L + 5) % 32], h[:, (L + 5) % 32])
    np.testing.assert_array_equal(out[:, 0], up.ravel())
    np.testing.assert_array_equal(out[:, 1], down.ravel())


def test_simd_votes_in_divergent_code(rt, rng):
    @enigma.kernel
    def k(A: enigma.f32, B: enigma.u64):
        i = enigma.thread_position_in_grid
        lane = enigma.thread_index_in_simdgroup()
        v = A[i]
        B[4 * i] = enigma.simd_ballot(v > 0.0)
        B[4 * i + 1] = enigma.u64(enigma.simd_all(v > -10.0)) + 2 * enigma.u64(enigma.simd_any(v > 100.0))
        B[4 * i + 2] = 0
        B[4 * i + 3] = 0
        with enigma.if_(lane % 2 == 1):
            # only odd lanes are active here
            B[4 * i + 2] = enigma.simd_active_threads_mask()
            B[4 * i + 3] = enigma.u64(enigma.simd_is_first())

    n = 64
    a = _n(rng, n)
    out = run_kernel(rt, k, [a], np.uint64, 4 * n, (n,), (64,)).reshape(n, 4)
    g = a.reshape(-1, 32) > 0
    ballots = np.array([sum(1 << j for j in range(32) if row[j]) for row in g], dtype=np.uint64)
    np.testing.assert_array_equal(out[:, 0], np.repeat(ballots, 32))
    np.testing.assert_array_equal(out[:, 1], np.ones(n, dtype=np.uint64))
    odd = sum(1 << j for j in range(1, 32, 2))
    L = np.arange(n) % 32
    np.testing.assert_array_equal(out[:, 2], np.where(L % 2 == 1, odd, 0).astype(np.uint64))
    np.testing.assert_array_equal(out[:, 3], (L == 1).astype(np.uint64))


def test_simd_sum_in_divergent_branch_uses_active_lanes(rt, rng):
    @enigma.kernel
    def k(A: enigma.i32, B: enigma.i32):
        i = enigma.thread_position_in_grid
        B[i] = -1
        with enigma.if_(enigma.cmp_lt(enigma.thread_index_in_simdgroup(), 10)):
            B[i] = enigma.simd_sum(A[i])

    n = 96
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    out = run_kernel(rt, k, [a], np.int32, n, (n,), (96,))
    g = a.reshape(-1, 32)
    ref = np.where(np.arange(32) < 10, g[:, :10].sum(1, keepdims=True), -1).ravel()
    np.testing.assert_array_equal(out, ref)


# ---- control flow ----------------------------------------------------------------------

def test_if_elif_else(rt, rng):
    @enigma.kernel
    def classify(A: enigma.f32, B: enigma.i32):
        i = enigma.thread_position_in_grid
        v = A[i]
        with enigma.if_(v < -1.0):
            r = enigma.i32(-2)
        with enigma.elif_(v < 0.0):
            r = enigma.i32(-1)
        with enigma.elif_(v < 1.0):
            r = enigma.i32(1)
        with enigma.else_():
            r = enigma.i32(2)
            with enigma.if_(v > 3.0):
                r = r * 10
        B[i] = r

    n = 500
    a = _n(rng, n)
    out = run_kernel(rt, classify, [a], np.int32, n, (n,), (128,))
    ref = np.select([a < -1, a < 0, a < 1, a > 3], [-2, -1, 1, 20], 2)
    np.testing.assert_array_equal(out, ref)


def test_for_range_with_several_carried_values_and_step(rt, rng):
    @enigma.kernel
    def stats(A: enigma.f32, n: enigma.Scalar(enigma.u32), Out: enigma.f32):
        row = enigma.thread_position_in_grid
        with enigma.for_range(0, n, 2, init=[enigma.f32(0.0), enigma.f32(-1e30)]) as (j, s, m):
            v = A[row * n + j]
            s = s + v
            m = enigma.max(m, v)
        Out[2 * row] = s
        Out[2 * row + 1] = m

    rows, n = 37, 50
    a = _n(rng, rows * n)
    out = run_kernel(rt, stats, [a, n], np.float32, 2 * rows, (rows,), (16,)).reshape(rows, 2)
    g = a.astype(np.float64).reshape(rows, n)[:, ::2]
    np.testing.assert_allclose(out[:, 0], g.sum(1), rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(out[:, 1], g.max(1).astype(np.float32))


def test_for_range_negative_step_and_nested(rt, rng):
    @enigma.kernel
    def k(A: enigma.i32, B: enigma.i32):
        i = enigma.thread_position_in_grid
        total = enigma.i32(0)
        with enigma.for_range(9, -1, -3) as j:
            with enigma.for_range(0, j) as q:
                total = total + A[i] * j + q
        B[i] = total

    n = 64
    a = rng.integers(-50, 50, n).astype(np.int32)
    out = run_kernel(rt, k, [a], np.int32, n, (n,), (64,))
    ref = sum(a.astype(np.int64) * j * j + j * (j - 1) // 2 for j in range(9, -1, -3))
    np.testing.assert_array_equal(out, ref)


def test_python_loops_unroll_and_augmented_assignment(rt, rng):
    @enigma.kernel
    def poly(A: enigma.f32, B: enigma.f32):
        i = enigma.thread_position_in_grid
        x = A[i]
        acc = enigma.f32(0.0)
        for c in (1.0, -2.0, 0.5, 3.0):   # Horner, unrolled while tracing
            acc = acc * x
            acc += c
        B[i] = acc

    n = 300
    a = _n(rng, n, -2, 2)
    out = run_kernel(rt, poly, [a], np.float32, n, (n,), (64,))
    x = a.astype(np.float64)
    np.testing.assert_allclose(out, ((1 * x - 2) * x + 0.5) * x + 3, rtol=1e-5, atol=1e-5)


def test_load_if_with_bounds_mask(rt, rng):
    @enigma.kernel
    def window(A: enigma.f32, B: enigma.f32, n: enigma.Scalar(enigma.u32)):
        i = enigma.thread_position_in_grid
        left = enigma.load_if(A, i - 1, enigma.logical_and(i > 0, i - 1 < n), other=0)
        mid = enigma.load_if(A, i, enigma.cmp_lt(i, n))
        right = enigma.load_if(A, i + 1, enigma.cmp_lt(i + 1, n), other=-1.0)
        B[i] = left + mid + right

    n = 1000          # the grid is padded to 1024; the masks keep every load inside A
    a = _n(rng, n)
    out = run_kernel(rt, window, [a, n], np.float32, 1024, (1024,), (256,))
    a64 = a.astype(np.float64)
    ref = [(a64[i - 1] if 0 < i <= n else 0.0) + (a64[i] if i < n else 0.0)
           + (a64[i + 1] if i + 1 < n else -1.0) for i in range(1024)]
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)


def test_while_break_and_return(rt, rng):
    @enigma.kernel
    def collatz(A: enigma.u32, B: enigma.u32):
        i = enigma.thread_position_in_grid
        with enigma.if_(A[i] == 0):
            B[i] = 12345
            enigma.return_()
        x = enigma.var(A[i], name="x")
        steps = enigma.var(enigma.u32(0), name="steps")
        with enigma.while_(x != 1):
            with enigma.if_(x % 2 == 0):
                x = x / 2
            with enigma.else_():
                x = 3 * x + 1
            steps = steps + 1
            with enigma.if_(steps >= 500):
                enigma.break_()
        B[i] = steps

    n = 100
    a = rng.integers(1, 10000, n).astype(np.uint32)
    a[5] = 0
    out = run_kernel(rt, collatz, [a], np.uint32, n, (n,), (32,))

    def ref(v):
        if v == 0:
            return 12345
        s = 0
        while v != 1 and s < 500:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            s += 1
        return s
    np.testing.assert_array_equal(out, [ref(int(v)) for v in a])


# ---- hand-written MSL ---------------------------------------------------------------

SAXPY = """
#include <metal_stdlib>
using namespace metal;

kernel void saxpy(device const float* x [[buffer(0)]],
                  device float* y [[buffer(1)]],
                  constant float& a [[buffer(2)]],
                  uint i [[thread_position_in_grid]])
{
    y[i] = a * x[i] + y[i];
}
"""


def test_compile_source_runs(rt, rng):
    c = enigma.compile_source(SAXPY, "saxpy")
    n = 4096
    x, y = _n(rng, n), _n(rng, n)
    a = np.float32(rng.uniform(-2, 2))
    want = a * x.astype(np.float64) + y  # before the kernel writes y in place
    out = np.frombuffer(rt.execute(c, inputs=[x, y, a], grid=(n,), threads=(256,)),
                        dtype=np.float32)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(y, out)
    assert c.outputs == ["y"]


def test_simd_and_quad_group_attributes(rt):
    @enigma.kernel
    def k(Out: enigma.u32):
        i = enigma.thread_position_in_grid
        Out[4 * i] = enigma.threads_per_simdgroup() + 1000 * enigma.simdgroups_per_threadgroup()
        Out[4 * i + 1] = enigma.thread_index_in_quadgroup() + 100 * enigma.quadgroup_index_in_threadgroup()
        Out[4 * i + 2] = enigma.quadgroups_per_threadgroup()
        Out[4 * i + 3] = enigma.dispatch_threads_per_threadgroup("x")

    out = run_kernel(rt, k, [], np.uint32, 4 * 100, (100,), (64,)).reshape(100, 4)
    # threadgroups of 64 and an edge group of 36 (dispatch by threads)
    l = np.arange(100) % 64
    size = np.where(np.arange(100) < 64, 64, 36)
    np.testing.assert_array_equal(out[:, 0], 32 + 1000 * -(-size // 32))
    np.testing.assert_array_equal(out[:, 1], l % 4 + 100 * (l // 4))
    np.testing.assert_array_equal(out[:, 2], -(-size // 4))
    np.testing.assert_array_equal(out[:, 3], np.full(100, 64))


def test_simdgroup_matrix_multiply_accumulate(rt, rng):
    @enigma.kernel
    def mm8(A: enigma.f32, B: enigma.f32, C: enigma.f32, K: enigma.Scalar(enigma.u32)):
        matC = enigma.make_filled_simdgroup_matrix(0.0)
        with enigma.for_range(0, K, 8) as k:
            matA = enigma.simdgroup_matrix_load(A, elements_per_row=K, origin=(k, 0))
            matB = enigma.simdgroup_matrix_load(B, elements_per_row=8, offset=k * 8)
            matC = enigma.simdgroup_multiply_accumulate(matA, matB, matC)
        enigma.simdgroup_matrix_store(matC, C, elements_per_row=8)

    K = 32
    a = _n(rng, 8 * K)
    b = _n(rng, K * 8)
    out = run_kernel(rt, mm8, [a, b, K], np.float32, 64, (32,), (32,)).reshape(8, 8)
    ref = a.astype(np.float64).reshape(8, K) @ b.astype(np.float64).reshape(K, 8)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-4)


@enigma.func
def _clamped_sum(buf, start, count, limit):
    # a helper with its own loop-carried name, tracked like a kernel body
    s = enigma.f32(0.0)
    with enigma.for_range(0, count) as q:
        with enigma.if_(start + q < limit):
            s = s + buf[start + q]
    return s


def test_helper_functions_and_position_objects(rt, rng):
    @enigma.kernel
    def k(A: enigma.f32, B: enigma.f32, n: enigma.Scalar(enigma.u32)):
        pos = enigma.thread_position_in_grid           # the attribute itself: .x/.y work
        i = pos.y * 16 + pos.x
        B[i] = _clamped_sum(A, i, 3, n)

    n = 250
    a = _n(rng, n)
    out = run_kernel(rt, k, [a, n], np.float32, 256, (16, 16), (16, 4))
    a64 = np.concatenate([a.astype(np.float64), np.zeros(8)])
    ref = [sum(a64[i + q] for q in range(3) if i + q < n) for i in range(256)]
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)
