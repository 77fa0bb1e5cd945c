"""MLX's Metal kernels (issue 10), compiled unmodified from ../shared/realworld and run as MLX's
host runs them (one threadgroup per row, N_READS values per thread; the looped variants with a
fixed threadgroup), against float64 NumPy from fresh random inputs. Runs on the cpu backend, or
on cuda with ENIGMA_TEST_BACKEND=cuda."""

import os

import numpy as np
import pytest

import enigma

from .conftest import realworld_dir

MLX = realworld_dir() / "mlx"
KERNELS = MLX / "mlx" / "backend" / "metal" / "kernels"

pytestmark = pytest.mark.skipif(not KERNELS.is_dir(), reason="../shared/realworld is not here")

N_READS = 4  # SOFTMAX_N_READS and RMS_N_READS in MLX's defines.h


def _compile(file, kernel, constants=None):
    path = KERNELS / file
    return enigma.compile_source(path.read_text(), kernel, filename=str(path), include_dirs=[str(MLX)],
                                 constants=constants)


@pytest.fixture(scope="module")
def rt():
    return enigma.Runtime(os.environ.get("ENIGMA_TEST_BACKEND", "cpu"))


@pytest.fixture
def rng():
    return np.random.default_rng()


def _softmax(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("name,dtype,tol", [("float32", np.float32, 2e-6), ("float16", np.float16, 2e-3)])
def test_block_softmax(rt, rng, name, dtype, tol):
    rows, axis = int(rng.integers(3, 9)), int(rng.integers(200, 1000))
    x = (rng.standard_normal((rows, axis)) * 3).astype(dtype)
    out = np.zeros_like(x)
    threads = -(-axis // N_READS)
    threads = -(-threads // 32) * 32
    rt.launch(_compile("softmax.metal", "block_softmax_" + name), grid=(rows * threads, 1, 1),
              threads=(threads, 1, 1), **{"in": x, "out": out, "axis_size": np.int32(axis)})
    np.testing.assert_allclose(out.astype(np.float64), _softmax(x), rtol=tol, atol=tol * 1e-2)


def test_looped_softmax(rt, rng):
    rows, axis = 3, int(rng.integers(5000, 9000))
    x = (rng.standard_normal((rows, axis)) * 3).astype(np.float32)
    out = np.zeros_like(x)
    rt.launch(_compile("softmax.metal", "looped_softmax_float32"), grid=(rows * 1024, 1, 1), threads=(1024, 1, 1),
              **{"in": x, "out": out, "axis_size": np.int32(axis)})
    np.testing.assert_allclose(out, _softmax(x), rtol=2e-6, atol=1e-9)


def test_rms_norm(rt, rng):
    rows, axis = int(rng.integers(3, 9)), int(rng.integers(100, 1000))
    x = rng.standard_normal((rows, axis)).astype(np.float32)
    w = rng.standard_normal(axis).astype(np.float32)
    out = np.zeros_like(x)
    eps = 1e-5
    threads = -(-axis // N_READS)
    threads = -(-threads // 32) * 32
    rt.launch(_compile("rms_norm.metal", "rmsfloat32", {"has_w": True}), grid=(rows * threads, 1, 1),
              threads=(threads, 1, 1), x=x, w=w, out=out, eps=np.float32(eps), axis_size=np.uint32(axis),
              w_stride=np.uint32(1))
    x64 = x.astype(np.float64)
    want = x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + eps) * w
    np.testing.assert_allclose(out, want, rtol=2e-5, atol=2e-5)


def test_layer_norm(rt, rng):
    rows, axis = int(rng.integers(3, 9)), int(rng.integers(100, 1000))
    x = (rng.standard_normal((rows, axis)) * 2 + 0.5).astype(np.float32)
    w = rng.standard_normal(axis).astype(np.float32)
    b = rng.standard_normal(axis).astype(np.float32)
    out = np.zeros_like(x)
    eps = 1e-5
    threads = -(-axis // N_READS)
    threads = -(-threads // 32) * 32
    rt.launch(_compile("layer_norm.metal", "layer_normfloat32", {"has_w": True}), grid=(rows * threads, 1, 1),
              threads=(threads, 1, 1), x=x, w=w, b=b, out=out, eps=np.float32(eps), axis_size=np.uint32(axis),
              w_stride=np.uint32(1), b_stride=np.uint32(1))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    want = (x64 - mean) / np.sqrt(((x64 - mean) ** 2).mean(axis=1, keepdims=True) + eps) * w + b
    np.testing.assert_allclose(out, want, rtol=5e-5, atol=5e-5)


@pytest.mark.parametrize("traditional", [False, True])
def test_rope_single(rt, rng, traditional):
    rows, dims = int(rng.integers(2, 7)), 2 * int(rng.integers(8, 40))
    x = rng.standard_normal((rows, dims)).astype(np.float32)
    out = np.zeros_like(x)
    offset, scale, base = int(rng.integers(1, 50)), 1.0, np.log2(10000.0)
    c = _compile("rope.metal", "rope_single_float32",
                 {"forward": True, "traditional": traditional, "hs_transpose": False})
    half = dims // 2
    rt.launch(c, grid=(half, rows, 1), threads=(min(half, 32), 1, 1),
              **{"in": x, "out": out, "offset": np.int32(offset), "scale": np.float32(scale),
                 "stride": np.int64(dims), "base": np.float32(base)})
    inv_freq = np.exp2(-(np.arange(half) / half) * base)
    theta = scale * offset * inv_freq
    x64 = x.astype(np.float64)
    a, b = (x64[:, 0::2], x64[:, 1::2]) if traditional else (x64[:, :half], x64[:, half:])
    r1 = a * np.cos(theta) - b * np.sin(theta)
    r2 = a * np.sin(theta) + b * np.cos(theta)
    want = np.empty_like(x64)
    if traditional:
        want[:, 0::2], want[:, 1::2] = r1, r2
    else:
        want[:, :half], want[:, half:] = r1, r2
    # fast::sin/cos of angles up to ~50 radians: a few float ulps of the angle
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=2e-4)


@pytest.mark.parametrize("kernel,per_thread,op", [
    ("vv_Addfloat32", 1, np.add), ("vvn_Multiplyfloat32", 2, np.multiply),
    ("sv_Maximumfloat32", 1, None), ("vv_Subtractint32", 1, np.subtract)])
def test_binary(rt, rng, kernel, per_thread, op):
    n = int(rng.integers(300, 3000)) | 1  # odd: the last thread of the n-per-thread kernels has less
    is_int = kernel.endswith("int32")
    make = (lambda: rng.integers(-1000, 1000, n).astype(np.int32)) if is_int else \
        (lambda: rng.standard_normal(n).astype(np.float32))
    a, b = make(), make()
    c = np.zeros_like(a)
    if kernel.startswith("sv"):
        want = np.maximum(a[0], b)
    else:
        want = op(a.astype(np.float64), b.astype(np.float64))
    threads = -(-n // per_thread)
    rt.launch(_compile("binary.metal", kernel), grid=(threads, 1, 1), threads=(min(threads, 256), 1, 1),
              a=a, b=b, c=c, size=np.uint32(n))
    np.testing.assert_allclose(c, want, rtol=1e-6, atol=0)


@pytest.mark.parametrize("kernel,ref,tol", [
    ("v_Expfloat32float32", np.exp, 2e-6), ("v_Absfloat32float32", np.abs, 0),
    ("v_Sigmoidfloat32float32", lambda x: 1 / (1 + np.exp(-x)), 2e-6)])
def test_unary(rt, rng, kernel, ref, tol):
    n = int(rng.integers(200, 2000))
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    out = np.zeros_like(x)
    rt.launch(_compile("unary.metal", kernel), grid=(n, 1, 1), threads=(min(n, 256), 1, 1),
              **{"in": x, "out": out, "size": np.uint32(n)})
    np.testing.assert_allclose(out, ref(x.astype(np.float64)), rtol=tol, atol=0)


def test_copy_converts(rt, rng):
    n = int(rng.integers(200, 2000))
    src = (rng.standard_normal(n) * 100).astype(np.float32)
    dst = np.zeros(n, np.float16)
    rt.launch(_compile("copy.metal", "v_copyfloat32float16"), grid=(n, 1, 1), threads=(min(n, 256), 1, 1),
              src=src, dst=dst, size=np.uint32(n))
    np.testing.assert_array_equal(dst, src.astype(np.float16))


SPLITK_PARAMS = np.dtype([(n, np.int32) for n in (
    "M", "N", "K", "lda", "ldb", "ldc", "tiles_n", "tiles_m", "split_k_partitions",
    "split_k_partition_stride", "split_k_partition_size", "swizzle_log", "gemm_k_iterations_aligned")])


@pytest.mark.parametrize("itype,dtype,tol", [("float32", np.float32, 2e-5), ("float16", np.float16, 2e-3)])
def test_steel_gemm_splitk(rt, rng, itype, dtype, tol):
    # MLX's split-K GEMM (steel): each partition of K writes its own M x N product
    bm = bn = bk = 16
    m, n, parts, k_per = 48, 64, 3, 32
    k = parts * k_per
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c = np.zeros((parts, m, n), np.float32)
    params = np.zeros(1, SPLITK_PARAMS)
    params[0] = (m, n, k, k, n, n, n // bn, m // bm, parts, m * n, k_per, 0, k_per // bk)
    name = "steel_gemm_splitk_nn_%s_float32_bm16_bn16_bk16_wm2_wn2_MN_taligned_K_taligned" % itype
    rt.launch(_compile("steel/gemm/kernels/steel_gemm_splitk.metal", name),
              grid=(n // bn, m // bm, parts), threads=(32, 2, 2), threadgroups=True,
              A=a, B=b, C=c, params=params.view(np.uint8))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    for p in range(parts):
        want = a64[:, p * k_per:(p + 1) * k_per] @ b64[p * k_per:(p + 1) * k_per, :]
        np.testing.assert_allclose(c[p], want, rtol=tol, atol=tol * np.abs(want).max())


# -- sort (block merge sort: one threadgroup sorts one segment of up to BLOCK_THREADS * N_PER_THREAD)
@pytest.mark.parametrize("kernel,dtype", [("c_block_sort_float32_float32_bn32_tn4", np.float32),
                                          ("c_block_sort_int32_int32_bn32_tn4", np.int32)])
def test_block_sort(rt, rng, kernel, dtype):
    segments, n = int(rng.integers(2, 6)), int(rng.integers(70, 129))
    if dtype == np.float32:
        x = rng.standard_normal((segments, n)).astype(np.float32)
        x[rng.random((segments, n)) < 0.05] = np.nan  # MLX's LessThan puts NaNs last, as NumPy does
    else:
        x = rng.integers(-1000, 1000, (segments, n)).astype(np.int32)
    out = np.zeros_like(x)
    rt.launch(_compile("sort.metal", kernel), grid=(1, segments, 1), threads=(32, 1, 1), threadgroups=True,
              inp=x, out=out, size_sorted_axis=np.int32(n), in_stride_sorted_axis=np.int32(1),
              out_stride_sorted_axis=np.int32(1), in_stride_segment_axis=np.int32(n),
              out_stride_segment_axis=np.int32(n))
    np.testing.assert_array_equal(out, np.sort(x, axis=1))


def test_arg_block_sort(rt, rng):
    segments, n = int(rng.integers(2, 6)), int(rng.integers(70, 129))
    x = rng.permutation(segments * n).reshape(segments, n).astype(np.float32) - 100.0  # distinct keys
    out = np.zeros((segments, n), np.uint32)
    rt.launch(_compile("sort.metal", "carg_block_sort_float32_uint32_bn32_tn4"), grid=(1, segments, 1),
              threads=(32, 1, 1), threadgroups=True, inp=x, out=out, size_sorted_axis=np.int32(n),
              in_stride_sorted_axis=np.int32(1), out_stride_sorted_axis=np.int32(1),
              in_stride_segment_axis=np.int32(n), out_stride_segment_axis=np.int32(n))
    np.testing.assert_array_equal(out, np.argsort(x, axis=1))


# -- scaled_dot_product_attention, the one-pass vector kernel (one query row per threadgroup of
# 32 SIMD groups; each SIMD group walks every 32nd key), as MLX's host dispatches it
SDPA_CONSTANTS = {"has_mask": False, "query_transposed": False, "do_causal": False, "bool_mask": False,
                  "float_mask": False, "has_sinks": False, "blocks": 4}


def test_sdpa_vector(rt, rng):
    heads_q, gqa, lq, n, d = 4, 2, int(rng.integers(1, 4)), int(rng.integers(40, 200)), 64
    heads_kv = heads_q // gqa
    q = rng.standard_normal((heads_q, lq, d)).astype(np.float32)
    k = rng.standard_normal((heads_kv, n, d)).astype(np.float32)
    v = rng.standard_normal((heads_kv, n, d)).astype(np.float32)
    out = np.zeros((heads_q, lq, d), np.float32)
    scale = 1.0 / np.sqrt(d)
    c = _compile("scaled_dot_product_attention.metal", "sdpa_vector_float_64_64", SDPA_CONSTANTS)
    rt.launch(c, grid=(heads_q, lq, 1), threads=(1024, 1, 1), threadgroups=True,
              queries=q, keys=k, values=v, out=out, gqa_factor=np.int32(gqa), N=np.int32(n),
              k_head_stride=np.uint64(n * d), k_seq_stride=np.uint64(d),
              v_head_stride=np.uint64(n * d), v_seq_stride=np.uint64(d), scale=np.float32(scale))
    q64, k64, v64 = q.astype(np.float64), k.astype(np.float64), v.astype(np.float64)
    kh, vh = k64[np.arange(heads_q) // gqa], v64[np.arange(heads_q) // gqa]
    s = np.einsum("hqd,hkd->hqk", q64 * np.float32(scale), kh)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    want = np.einsum("hqk,hkd->hqd", p / p.sum(axis=-1, keepdims=True), vh)
    np.testing.assert_allclose(out, want, rtol=2e-5, atol=2e-5)


# -- reduce: the all-reduce kernel's first pass (one threadgroup per row of row_size elements
# writes that row's partial result; MLX's host then reduces the partials with the same kernel)
@pytest.mark.parametrize("kernel,dtype", [("all_reduce_sumfloat32", np.float32), ("all_reduce_sumint32", np.int32)])
def test_all_reduce_sum(rt, rng, kernel, dtype):
    rows, row_size = int(rng.integers(2, 9)), int(rng.integers(1000, 5000))
    size = rows * row_size - int(rng.integers(0, row_size // 2))  # a short last row
    if dtype == np.float32:
        x = rng.standard_normal(size).astype(np.float32)
    else:
        x = rng.integers(-1000, 1000, size).astype(np.int32)
    out = np.zeros(rows, dtype)
    rt.launch(_compile("reduce.metal", kernel), grid=(1, rows, 1), threads=(256, 1, 1), threadgroups=True,
              **{"in": x, "out": out, "in_size": np.uint64(size), "row_size": np.uint64(row_size)})
    want = np.array([x[r * row_size:(r + 1) * row_size].astype(np.float64).sum() for r in range(rows)])
    if dtype == np.int32:
        np.testing.assert_array_equal(out, want.astype(np.int64))
    else:
        bound = 8 * np.sqrt(row_size) * 2.0 ** -24 * np.array(
            [np.abs(x[r * row_size:(r + 1) * row_size]).astype(np.float64).sum() for r in range(rows)])
        assert np.all(np.abs(out - want) <= bound), (out, want)


# -- logsumexp and scans: SIMD-group functions around threadgroup barriers, which the cpu
# backend's wide mode (emit_wide.c) runs (each of these kernels takes it)
@pytest.mark.parametrize("kernel", ["block_logsumexp_float32", "looped_logsumexp_float32"])
def test_logsumexp(rt, rng, kernel):
    rows = int(rng.integers(3, 9))
    axis = int(rng.integers(200, 1000)) if kernel.startswith("block") else int(rng.integers(5000, 9000))
    x = (rng.standard_normal((rows, axis)) * 3).astype(np.float32)
    out = np.zeros(rows, np.float32)
    threads = -(-(-(-axis // N_READS)) // 32) * 32 if kernel.startswith("block") else 1024
    rt.launch(_compile("logsumexp.metal", kernel), grid=(rows * threads, 1, 1), threads=(threads, 1, 1),
              **{"in": x, "out": out, "axis_size": np.int32(axis)})
    x64 = x.astype(np.float64)
    m = x64.max(axis=1)
    want = np.log(np.exp(x64 - m[:, None]).sum(axis=1)) + m
    np.testing.assert_allclose(out, want, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("kernel", ["contig_scan_inclusive_sum_bool__int32", "contig_scan_reverse_exclusive_sum_bool__int32",
                                    "contig_scan_inclusive_sum_float32_float32"])
def test_contig_scan(rt, rng, kernel):
    rows, axis = int(rng.integers(2, 6)), int(rng.integers(300, 5000))
    if "bool" in kernel:
        x = rng.random((rows, axis)) < 0.4
        out = np.zeros((rows, axis), np.int32)
    else:
        x = (rng.integers(-64, 64, (rows, axis)) / 8).astype(np.float32)  # exact sums in any order
        out = np.zeros((rows, axis), np.float32)
    threads = min(1024, -(-(-(-axis // 4)) // 32) * 32)
    rt.launch(_compile("scan.metal", kernel), grid=(1, rows, 1), threads=(threads, 1, 1), threadgroups=True,
              **{"in": x, "out": out, "axis_size": np.uint64(axis)})
    v = x.astype(np.int64) if "bool" in kernel else x.astype(np.float64)
    if "reverse" in kernel:
        v = v[:, ::-1]
    want = np.cumsum(v, axis=1)
    if "exclusive" in kernel:
        want = want - v
    if "reverse" in kernel:
        want = want[:, ::-1]
    np.testing.assert_array_equal(out, want.astype(out.dtype))


# -- column reduction (an R x C matrix summed over its rows), a tile of 32 x 32 per
# threadgroup: one of the 972 reduce.metal kernels wide mode takes; the 2-D form walks the
# reduced rows as a (R / 2) x 2 grid of them
@pytest.mark.parametrize("kernel,dtype", [("col_reduce_looped_1_32_32_reduce_sumfloat32", np.float32),
                                          ("col_reduce_looped_large_2_32_32_reduce_sumint32", np.int32)])
def test_col_reduce(rt, rng, kernel, dtype):
    R, C = 2 * int(rng.integers(20, 200)), int(rng.integers(40, 300))
    x = rng.integers(-64, 64, (R, C))
    x = (x / 8).astype(np.float32) if dtype == np.float32 else x.astype(np.int32)  # exact sums in any order
    out = np.zeros(C, dtype)
    two_d = "_2_32_" in kernel
    reduce_shape, reduce_strides = ([R // 2, 2], [2 * C, C]) if two_d else ([R], [C])
    rt.launch(_compile("reduce.metal", kernel), grid=(-(-C // 32), 1, 1), threads=(256, 1, 1), threadgroups=True,
              **{"in": x, "out": out, "reduction_size": np.uint64(R), "reduction_stride": np.int64(C),
                 "shape": np.array([1], np.int32), "strides": np.array([0], np.int64), "ndim": np.int32(1),
                 "reduce_shape": np.array(reduce_shape, np.int32), "reduce_strides": np.array(reduce_strides, np.int64),
                 "reduce_ndim": np.int32(len(reduce_shape)), "non_col_reductions": np.uint64(1)})
    np.testing.assert_array_equal(out, x.astype(np.float64).sum(axis=0).astype(dtype))


# -- row reductions: N_WRITES (4) rows per threadgroup (row_reduce_simple; the last group
# moves back to end at the last row) and the looped form (non_row_reductions rows folded into
# each output); both take wide mode's SIMD-group regions (emit_wide.c sg_region)
@pytest.mark.parametrize("kernel,dtype", [("row_reduce_simple_sumfloat32", np.float32),
                                          ("row_reduce_simple_maxint32", np.int32)])
def test_row_reduce_simple(rt, rng, kernel, dtype):
    rows, row_size = int(rng.integers(5, 14)), int(rng.integers(100, 3000))
    threads = int(rng.choice([32, 96, 256]))
    x = (rng.integers(-64, 64, (rows, row_size)) / 8).astype(dtype) if dtype == np.float32 else \
        rng.integers(-100000, 100000, (rows, row_size)).astype(dtype)
    out = np.full(rows, 7, dtype)
    rt.launch(_compile("reduce.metal", kernel), grid=(1, -(-rows // 4), 1), threads=(threads, 1, 1), threadgroups=True,
              **{"in": x, "out": out, "reduction_size": np.uint64(row_size), "out_size": np.int64(rows)})
    want = x.astype(np.float64).sum(axis=1) if "sum" in kernel else x.max(axis=1)
    np.testing.assert_array_equal(out, want.astype(dtype))  # eighths: exact sums in any order


def test_row_reduce_looped(rt, rng):
    outs, folded, row_size = int(rng.integers(2, 6)), int(rng.integers(2, 5)), int(rng.integers(100, 2000))
    x = (rng.integers(-64, 64, (outs, folded, row_size)) / 8).astype(np.float32)
    out = np.zeros(outs, np.float32)
    rt.launch(_compile("reduce.metal", "row_reduce_looped_1_reduce_sumfloat32"), grid=(1, outs, 1), threads=(128, 1, 1),
              threadgroups=True,
              **{"in": x, "out": out, "row_size": np.int64(row_size), "non_row_reductions": np.int64(folded),
                 "shape": np.array([outs], np.int32), "strides": np.array([folded * row_size], np.int64),
                 "ndim": np.int32(1), "reduce_shape": np.array([folded], np.int32),
                 "reduce_strides": np.array([row_size], np.int64), "reduce_ndim": np.int32(1)})
    np.testing.assert_array_equal(out, x.astype(np.float64).sum(axis=(1, 2)).astype(np.float32))


# -- scans whose operator returns early per element (max and min: `if (isnan(a) || isnan(b))
# return NaN;`, an inlined function's loop that each thread leaves on its own; emit_wide.c
# headless_in_thread); NaNs put in a few places must carry to the end of their row
@pytest.mark.parametrize("kernel,op", [("contig_scan_inclusive_max_float32_float32", np.fmax),
                                       ("contig_scan_reverse_exclusive_min_float32_float32", np.fmin)])
def test_contig_scan_nan(rt, rng, kernel, op):
    rows, axis = int(rng.integers(2, 6)), int(rng.integers(300, 3000))
    x = rng.standard_normal((rows, axis)).astype(np.float32)
    nan_at = rng.integers(axis // 2, axis, rows)
    x[np.arange(rows), nan_at] = np.nan
    out = np.zeros((rows, axis), np.float32)
    threads = min(1024, -(-(-(-axis // 4)) // 32) * 32)
    rt.launch(_compile("scan.metal", kernel), grid=(1, rows, 1), threads=(threads, 1, 1), threadgroups=True,
              **{"in": x, "out": out, "axis_size": np.uint64(axis)})
    v = x[:, ::-1] if "reverse" in kernel else x
    init = np.float32(-np.inf) if op is np.fmax else np.float32(np.inf)
    want = np.empty_like(v)
    for r in range(rows):  # NaN from its position on, as MLX's operator makes it
        acc, seen_nan = init, False
        for i in range(axis):
            if "exclusive" in kernel:
                want[r, i] = np.nan if seen_nan else acc
            seen_nan = seen_nan or np.isnan(v[r, i])
            acc = op(acc, v[r, i])
            if "inclusive" in kernel:
                want[r, i] = np.nan if seen_nan else acc
    if "reverse" in kernel:
        want = want[:, ::-1]
    np.testing.assert_array_equal(out, want)
