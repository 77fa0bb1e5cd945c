"""ggml's Metal backend (llama.cpp's, unmodified: ../shared/realworld/ggml) through enigma.

The whole ggml-metal.metal goes through the front end with the function-constant values of
ggml_constants.txt; then selected kernels run as ggml's host runs them: the argument struct
(ggml_metal_kargs_*, packed here from ggml-metal-impl.h's declarations with C/MSL alignment),
the buffers at ggml's indices, the function constants the host sets for that pipeline (values
of ggml_constants.txt overridden per test), and the threadgroup grid, threadgroup size and
threadgroup memory that ggml-metal-ops.cpp dispatches with. Every result is compared with a
NumPy reference computed here in float64 from fresh random inputs.

Shapes are small enough for the cpu backend in CI, but not trivial: rows that are not powers of
two, several threadgroups in every direction the kernel uses, broadcasts, bounds-checked
edges. ENIGMA_TEST_BACKEND=cuda runs the same tests on an NVIDIA GPU.
"""
import math
import pathlib
import re
import subprocess

import numpy as np
import pytest

import enigma

from .conftest import BACKEND, find_cli, realworld_dir

GGML = realworld_dir() / "ggml"
METAL = GGML / "src" / "ggml-metal" / "ggml-metal.metal"
INCLUDE_DIRS = [str(GGML / "src"), str(GGML / "src" / "ggml-metal")]
DEFINES = ["GGML_METAL_HAS_BF16"]

if not METAL.is_file():
    pytest.skip("ggml's Metal sources are not here (%s): they are test inputs kept in "
                "../shared/realworld beside the checkout, or where $ENIGMA_REALWORLD says"
                % METAL, allow_module_level=True)

CONSTANTS_FILE = pathlib.Path(__file__).with_name("ggml_constants.txt")


def _base_constants():
    """NAME -> VALUE of ggml_constants.txt: every function constant of the file has one."""
    values = {}
    for line in CONSTANTS_FILE.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, value = line.split("=", 1)
            values[name.strip()] = value.strip()
    return values


BASE_CONSTANTS = _base_constants()
SOURCE = METAL.read_text()
_compiled = {}  # (host name, constants) -> enigma.Compiled, for the whole module


def ggml_kernel(host_name, **constants):
    """The kernel `host_name` of ggml-metal.metal, compiled with ggml_constants.txt's values
    and `constants` over them (the ones ggml's host sets for this pipeline). One Compiled per
    kernel and constant set: its library is built a kernel at a time, the first dispatch
    builds this one."""
    values = dict(BASE_CONSTANTS)
    for name, value in constants.items():
        assert name in values, "%s is no function constant of ggml_constants.txt" % name
        values[name] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    key = (host_name, tuple(sorted(values.items())))
    if key not in _compiled:
        _compiled[key] = enigma.compile_source(
            SOURCE, host_name, filename=str(METAL), include_dirs=INCLUDE_DIRS, defines=DEFINES,
            constants=values, check=False)  # the first dispatch runs the front end
    return _compiled[key]


# -- ggml's argument structs, from ggml-metal-impl.h (MSL lays structs out as C does: int32 and
# float at 4 bytes, uint64 at 8, the struct padded to its largest member)

I32, U64, F32, I16, BOOL = "<i4", "<u8", "<f4", "<i2", "?"


def _struct(*fields):
    return np.dtype([(name, t) if shape is None else (name, t, shape)
                     for name, t, shape in (f if len(f) == 3 else f + (None,) for f in fields)],
                    align=True)


KARGS_BIN = _struct(
    ("ne00", I32), ("ne01", I32), ("ne02", I32), ("ne03", I32),
    ("nb00", U64), ("nb01", U64), ("nb02", U64), ("nb03", U64),
    ("ne10", I32), ("ne11", I32), ("ne12", I32), ("ne13", I32),
    ("nb10", U64), ("nb11", U64), ("nb12", U64), ("nb13", U64),
    ("ne0", I32), ("ne1", I32), ("ne2", I32), ("ne3", I32),
    ("nb0", U64), ("nb1", U64), ("nb2", U64), ("nb3", U64),
    ("offs", U64), ("o1", U64, (8,)))

KARGS_NORM = _struct(
    ("ne00", I32), ("ne00_t", I32), ("nb1", U64), ("nb2", U64), ("nb3", U64), ("eps", F32),
    ("nef1", I32, (3,)), ("nef2", I32, (3,)), ("nef3", I32, (3,)),
    ("nbf1", U64, (3,)), ("nbf2", U64, (3,)), ("nbf3", U64, (3,)))

KARGS_SOFT_MAX = _struct(
    ("ne00", I32), ("ne01", I32), ("ne02", I32), ("nb01", U64), ("nb02", U64), ("nb03", U64),
    ("ne11", I32), ("ne12", I32), ("ne13", I32), ("nb11", U64), ("nb12", U64), ("nb13", U64),
    ("nb1", U64), ("nb2", U64), ("nb3", U64),
    ("scale", F32), ("max_bias", F32), ("m0", F32), ("m1", F32), ("n_head_log2", I32))

KARGS_ROPE = _struct(
    ("ne00", I32), ("ne01", I32), ("ne02", I32), ("ne03", I32),
    ("nb00", U64), ("nb01", U64), ("nb02", U64), ("nb03", U64),
    ("ne0", I32), ("ne1", I32), ("ne2", I32), ("ne3", I32),
    ("nb0", U64), ("nb1", U64), ("nb2", U64), ("nb3", U64),
    ("n_past", I32), ("n_dims", I32), ("n_offs", I32), ("n_ctx_orig", I32),
    ("freq_base", F32), ("freq_scale", F32), ("ext_factor", F32), ("attn_factor", F32),
    ("beta_fast", F32), ("beta_slow", F32),
    ("sect_0", I32), ("sect_1", I32), ("sect_2", I32), ("sect_3", I32),
    ("src2", BOOL), ("inplace", BOOL))

KARGS_MUL_MV = _struct(
    ("ne00", I32), ("ne01", I32), ("ne02", I32),
    ("nb00", U64), ("nb01", U64), ("nb02", U64), ("nb03", U64),
    ("ne10", I32), ("ne11", I32), ("ne12", I32),
    ("nb10", U64), ("nb11", U64), ("nb12", U64), ("nb13", U64),
    ("ne0", I32), ("ne1", I32), ("nr0", I32), ("r2", I16), ("r3", I16))

KARGS_MUL_MM = _struct(
    ("ne00", I32), ("ne02", I32), ("nb01", U64), ("nb02", U64), ("nb03", U64),
    ("ne12", I32), ("nb10", U64), ("nb11", U64), ("nb12", U64), ("nb13", U64),
    ("ne0", I32), ("ne1", I32), ("r2", I16), ("r3", I16))

KARGS_GET_ROWS = _struct(
    ("ne00t", I32), ("ne00", I32), ("nb01", U64), ("nb02", U64), ("nb03", U64),
    ("ne10", I32), ("nb10", U64), ("nb11", U64), ("nb12", U64),
    ("nb1", U64), ("nb2", U64), ("nb3", U64))

KARGS_FLASH_ATTN_EXT = _struct(
    ("ne01", I32), ("ne02", I32), ("ne03", I32), ("nb01", U64), ("nb02", U64), ("nb03", U64),
    ("ne11", I32), ("ne_12_2", I32), ("ne_12_3", I32), ("ns10", I32),
    ("nb11", U64), ("nb12", U64), ("nb13", U64),
    ("ns20", I32), ("nb21", U64), ("nb22", U64), ("nb23", U64),
    ("ne31", I32), ("ne32", I32), ("ne33", I32), ("nb31", U64), ("nb32", U64), ("nb33", U64),
    ("ne1", I32), ("ne2", I32), ("ne3", I32),
    ("scale", F32), ("max_bias", F32), ("m0", F32), ("m1", F32), ("n_head_log2", I32),
    ("logit_softcap", F32))

KARGS_ARGSORT = _struct(
    ("ne00", I32), ("ne01", I32), ("ne02", I32), ("ne03", I32),
    ("nb00", U64), ("nb01", U64), ("nb02", U64), ("nb03", U64),
    ("ne0", I32), ("ne1", I32), ("ne2", I32), ("ne3", I32), ("top_k", I32))

KARGS_FLASH_ATTN_EXT_BLK = _struct(
    ("ne01", I32), ("ne30", I32), ("ne31", I32), ("ne32", I32), ("ne33", I32),
    ("nb31", U64), ("nb32", U64), ("nb33", U64))

# ggml's quantised blocks (ggml-common.h)
QK4_0, QK8_0 = 32, 32
BLOCK_Q4_0 = np.dtype([("d", "<f2"), ("qs", "u1", (QK4_0 // 2,))])   # 18 bytes
BLOCK_Q8_0 = np.dtype([("d", "<f2"), ("qs", "i1", (QK8_0,))])        # 34 bytes
MAXHALF = 65504.0


def kargs(dtype, **values):
    """One ggml_metal_kargs_* as the bytes the host passes with setBytes; every field named."""
    missing = set(dtype.names) - set(values)
    assert not missing, "fields left out: %s" % sorted(missing)
    a = np.zeros(1, dtype)
    for name, value in values.items():
        a[name] = value
    return a.view(np.int8)


def raw(a):
    """A C-contiguous array's bytes as the int8 array a `device char *` parameter takes; the
    kernel's writes land in `a`."""
    assert a.flags.c_contiguous
    return a.reshape(-1).view(np.int8)


def strides(a):
    """ggml's nb0..nb3 of an array of up to 4 dimensions, outermost last: (nb0, nb1, nb2, nb3)."""
    nb = list(reversed(a.strides))
    return tuple(nb + [nb[-1] * a.shape[0]] * (4 - len(nb)))


def dispatch(rt, kernel, groups, threads, smem=None, **buffers):
    """Metal's dispatchThreadgroups: `groups` threadgroups of `threads`, threadgroup memory
    [[threadgroup(0)]] of `smem` bytes, buffers by parameter name."""
    rt.launch(kernel, grid=groups, threads=threads, threadgroups=True,
              threadgroup_memory={0: smem} if smem is not None else None, args=buffers)


def assert_dot_close(got, want, abs_terms, n_terms, what):
    """A float32 sum of n products in any order is exact to about sqrt(n) * 2^-24 of the sum of
    their magnitudes (abs_terms); allow 8 times that (with n at least 16)."""
    tol = 8 * max(4.0, math.sqrt(n_terms)) * 2.0 ** -24 * abs_terms + 1e-30
    err = np.abs(got.astype(np.float64) - want)
    worst = np.unravel_index(np.argmax(err / tol), err.shape)
    assert np.all(err <= tol), (
        "%s: %d of %d outside the bound; worst at %s: got %r, want %r (bound %r)"
        % (what, int(np.sum(err > tol)), err.size, worst, got[worst], want[worst], tol[worst]))


# -- the whole file through the front end


@pytest.fixture(scope="module")
def ggml_ir(tmp_path_factory):
    """The kernel IR of the whole file, from the CLI's front end (enigma compile --emit ir)."""
    cli = find_cli()
    if cli is None or not cli.exists():
        pytest.fail("the enigma CLI is not built: set ENIGMA_CLI or build into build/")
    out = tmp_path_factory.mktemp("ggml") / "ggml.ir"
    args = [str(cli), "compile", str(METAL), "--emit", "ir", "-o", str(out)]
    for d in INCLUDE_DIRS:
        args += ["-I", d]
    for d in DEFINES:
        args += ["-D" + d]
    for name, value in BASE_CONSTANTS.items():
        args += ["--constant", "%s=%s" % (name, value)]
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    return out.read_text()


def test_the_whole_file_compiles_through_the_front_end(ggml_ir, capsys):
    kernels = re.findall(r"^kernel void (\w+)\(", ggml_ir, re.M)
    with capsys.disabled():
        print("\nggml: %d kernels compile" % len(kernels))
    assert len(kernels) >= 650
    # every kernel ggml's host asks for by name is there (the others are plain kernel functions)
    host_names = set(re.findall(r'\[\[host_name\("(\w+)"\)\]\]', SOURCE))
    assert host_names <= set(kernels), sorted(host_names - set(kernels))[:10]


@pytest.mark.parametrize("host_name,dtype", [
    ("kernel_bin_fuse_f32_f32_f32", KARGS_BIN), ("kernel_rms_norm_f32", KARGS_NORM),
    ("kernel_soft_max_f32", KARGS_SOFT_MAX), ("kernel_rope_norm_f32", KARGS_ROPE),
    ("kernel_mul_mv_f16_f32", KARGS_MUL_MV), ("kernel_mul_mm_f16_f32", KARGS_MUL_MM),
    ("kernel_get_rows_q8_0", KARGS_GET_ROWS),
    ("kernel_flash_attn_ext_f16_dk64_dv64", KARGS_FLASH_ATTN_EXT),
    ("kernel_flash_attn_ext_vec_f16_dk64_dv64", KARGS_FLASH_ATTN_EXT),  # the vec struct has the same fields
    ("kernel_flash_attn_ext_blk", KARGS_FLASH_ATTN_EXT_BLK)])
def test_argument_structs_are_laid_out_as_in_c(ggml_ir, host_name, dtype):
    """enigma lays out the kernel's `constant ggml_metal_kargs_* & args` as C does for the
    host (the NumPy struct here, with align=True): the same offsets and size."""
    sig = re.search(r"^kernel void %s\(constant (\w+)\* args" % host_name, ggml_ir, re.M)
    assert sig, "no kernel %s taking args first in the IR" % host_name
    body = re.search(r"^struct %s  ; size (\d+), align \d+\n((?:  .*\n)*)" % sig.group(1),
                     ggml_ir, re.M)
    fields = re.findall(r"^  \S+ (\w+)  ; offset (\d+)$", body.group(2), re.M)
    assert [(n, int(o)) for n, o in fields] == [(n, dtype.fields[n][1]) for n in dtype.names]
    assert int(body.group(1)) == dtype.itemsize


# -- element-wise: kernel_bin_fuse (ggml's add, sub, mul, div and fused chains of adds)

BIN_CASES = {
    # name: (FC_bin_op, n_fuse, row broadcast, src1 shape (ne13, ne12, ne11, ne10))
    "add": (0, 1, False, (1, 3, 1, 37)),
    "sub_rows": (1, 1, True, (1, 1, 1, 37)),
    "mul_cols": (2, 1, False, (2, 1, 5, 1)),
    "div": (3, 1, False, (2, 3, 5, 37)),
    "add_x3": (0, 3, False, (1, 3, 5, 37)),
}


@pytest.mark.parametrize("case", list(BIN_CASES))
def test_kernel_bin_fuse_f32(rt, rng, case):
    op, n_fuse, row_broadcast, shape1 = BIN_CASES[case]
    shape0 = (2, 3, 5, 37)  # ne03, ne02, ne01, ne00: 37 is not a multiple of 4 (no _4 kernel)
    col_broadcast = shape1[-1] != shape0[-1]
    src0 = rng.standard_normal(shape0).astype(np.float32)
    # fused operands lie one after another in one buffer, at byte offsets o1[j]
    src1 = rng.uniform(0.5, 2.0, (n_fuse,) + shape1) * rng.choice([-1.0, 1.0], (n_fuse,) + shape1)
    src1 = src1.astype(np.float32)
    dst = np.zeros(shape0, np.float32)

    ne0, ne1 = shape0[::-1], shape1[::-1]
    nb0, nb1, nbd = strides(src0), strides(src1[0]), strides(dst)
    args = kargs(KARGS_BIN,
                 ne00=ne0[0], ne01=ne0[1], ne02=ne0[2], ne03=ne0[3],
                 nb00=nb0[0], nb01=nb0[1], nb02=nb0[2], nb03=nb0[3],
                 ne10=ne1[0], ne11=ne1[1], ne12=ne1[2], ne13=ne1[3],
                 nb10=nb1[0], nb11=nb1[1], nb12=nb1[2], nb13=nb1[3],
                 ne0=ne0[0], ne1=ne0[1], ne2=ne0[2], ne3=ne0[3],
                 nb0=nbd[0], nb1=nbd[1], nb2=nbd[2], nb3=nbd[3],
                 offs=0, o1=[j * src1[0].nbytes for j in range(n_fuse)] + [0] * (8 - n_fuse))
    k = ggml_kernel("kernel_bin_fuse_f32_f32_f32", FC_bin_op=op, FC_bin_f=n_fuse,
                    FC_bin_rb=row_broadcast, FC_bin_cb=col_broadcast)
    if row_broadcast:  # one thread per element, a threadgroup each (ggml: pipeline.cnt)
        groups, threads = (ne0[0], src0.size // ne0[0], 1), (1, 1, 1)
    else:  # a threadgroup per row; threads: the power of two below ne0, at most 256
        nth = 1
        while 2 * nth < ne0[0] and nth < 256:
            nth *= 2
        groups, threads = (ne0[1], ne0[2], ne0[3]), (nth, 1, 1)
    dispatch(rt, k, groups, threads, args=args, src0=raw(src0), src1=raw(src1), dst=raw(dst))

    # src1 broadcast over src0 by index modulo its extent, in every dimension
    idx = np.ix_(*[np.arange(n) % m for n, m in zip(shape0, shape1)])
    want = src0.copy()
    for j in range(n_fuse):
        want = [np.add, np.subtract, np.multiply, np.divide][op](want, src1[j][idx])
    # IEEE float32 operations are correctly rounded: the same ones in the same order agree
    # bit for bit
    np.testing.assert_array_equal(dst, want)


# -- normalisation: kernel_rms_norm_f32 and its fused mul/add form


@pytest.mark.parametrize("host_name,fused", [("kernel_rms_norm_f32", 1),
                                              ("kernel_rms_norm_mul_add_f32", 3)])
def test_kernel_rms_norm(rt, rng, host_name, fused):
    shape = (2, 3, 5, 333)  # 333 per row: not a multiple of 4, so the scalar kernel
    x = (rng.standard_normal(shape) * rng.uniform(0.1, 10, shape[:3] + (1,))).astype(np.float32)
    dst = np.zeros(shape, np.float32)
    eps = 1e-6
    # the fused operands broadcast over rows (mul: one row per head; add: per row and batch)
    f0 = rng.standard_normal((1, 3, 1, shape[3])).astype(np.float32)
    f1 = rng.standard_normal((2, 1, 5, shape[3])).astype(np.float32)
    operands = [x, f0, f1] if fused == 3 else [x]
    nef = [[t.shape[2 - d] for t in operands] + [0] * (3 - len(operands)) for d in range(3)]
    nbf = [[strides(t)[1 + d] for t in operands] + [0] * (3 - len(operands)) for d in range(3)]
    nbd = strides(dst)
    args = kargs(KARGS_NORM, ne00=shape[3], ne00_t=shape[3], nb1=nbd[1], nb2=nbd[2], nb3=nbd[3],
                 eps=eps, nef1=nef[0], nef2=nef[1], nef3=nef[2],
                 nbf1=nbf[0], nbf2=nbf[1], nbf3=nbf[2])
    nth = 32
    while nth < shape[3] and nth < rt.device_capabilities().max_threads_per_threadgroup:
        nth *= 2
    nth = min(nth, (shape[3] + 31) // 32 * 32)  # 352: eleven SIMD groups
    src0 = raw(x)
    # ggml binds src0 in the slots of the operands a plain rms_norm does not have
    src1_0, src1_1 = (raw(f0), raw(f1)) if fused == 3 else (src0, src0)
    dispatch(rt, ggml_kernel(host_name), (shape[2], shape[1], shape[0]), (nth, 1, 1),
             smem=32 * 4, args=args, src0=src0, src1_0=src1_0, src1_1=src1_1, dst=raw(dst))

    x64 = x.astype(np.float64)
    want = x64 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + eps)
    if fused == 3:
        want = want * f0 + f1
    # float32 sum of 333 squares and a float32 rsqrt: a few units in the last place
    np.testing.assert_allclose(dst, want, rtol=2e-5, atol=2e-5)


# -- kernel_soft_max_f32 (the mask is float32), with ALiBi and attention sinks


def alibi_slopes(n_head, max_bias):
    """ALiBi's per-head slopes as ggml defines them (m0^(h+1), then odd powers of m1)."""
    if max_bias <= 0:
        return np.ones(n_head)
    n_head_log2 = 1 << int(math.floor(math.log2(n_head)))
    m0 = 2.0 ** (-max_bias / n_head_log2)
    m1 = 2.0 ** (-(max_bias / 2.0) / n_head_log2)
    return np.array([m0 ** (h + 1) if h < n_head_log2 else m1 ** (2 * (h - n_head_log2) + 1)
                     for h in range(n_head)])


@pytest.mark.parametrize("case", ["mask_sinks_alibi", "wide_rows"])
def test_kernel_soft_max_f32(rt, rng, case):
    if case == "mask_sinks_alibi":
        shape, with_mask, scale, max_bias = (2, 4, 7, 77), True, 0.37, 8.0
    else:  # one long row per head: several SIMD groups reduce through threadgroup memory
        shape, with_mask, scale, max_bias = (1, 2, 1, 1001), False, 1.3, 0.0
    ne03, ne02, ne01, ne00 = shape
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    dst = np.zeros(shape, np.float32)
    # mask rows: at least ne01 of them (ggml pads them), shared by every head (ne12 = 1)
    mask = rng.standard_normal((1, 1, ne01 + 1, ne00)).astype(np.float32)
    mask[rng.random(mask.shape) < 0.2] = -np.inf
    mask[..., 0] = 0.0  # no row fully masked
    sinks = rng.standard_normal(ne02).astype(np.float32) * 2

    n_head_log2 = 1 << int(math.floor(math.log2(ne02)))
    nb, nbm, nbd = strides(x), strides(mask), strides(dst)
    args = kargs(KARGS_SOFT_MAX, ne00=ne00, ne01=ne01, ne02=ne02,
                 nb01=nb[1], nb02=nb[2], nb03=nb[3],
                 ne11=mask.shape[2], ne12=mask.shape[1], ne13=mask.shape[0],
                 nb11=nbm[1], nb12=nbm[2], nb13=nbm[3], nb1=nbd[1], nb2=nbd[2], nb3=nbd[3],
                 scale=scale, max_bias=max_bias,
                 m0=2.0 ** (-max_bias / n_head_log2), m1=2.0 ** (-(max_bias / 2.0) / n_head_log2),
                 n_head_log2=n_head_log2)
    nth = 32
    while nth < ne00 and nth * ne01 * ne02 * ne03 < 256:
        nth *= 2
    src0 = raw(x)
    # a missing mask or sinks operand is bound as src0: the kernel compares the pointers
    src1, src2 = (raw(mask), raw(sinks)) if with_mask else (src0, src0)
    dispatch(rt, ggml_kernel("kernel_soft_max_f32"), (ne01, ne02, ne03), (nth, 1, 1),
             smem=32 * 4, args=args, src0=src0, src1=src1, src2=src2, dst=raw(dst))

    logits = x.astype(np.float64) * scale
    if with_mask:
        slopes = alibi_slopes(ne02, max_bias)[None, :, None, None]
        logits = logits + slopes * mask[:, :, :ne01, :]
        sink = sinks.astype(np.float64)[None, :, None, None]
        m = np.maximum(logits.max(axis=-1, keepdims=True), sink)
        e = np.exp(logits - m)
        want = e / (e.sum(axis=-1, keepdims=True) + np.exp(sink - m))
    else:
        e = np.exp(logits - logits.max(axis=-1, keepdims=True))
        want = e / e.sum(axis=-1, keepdims=True)
    # float32 exp of arguments up to ~20 in size, a float32 sum of up to 1001 terms
    np.testing.assert_allclose(dst, want, rtol=2e-5, atol=1e-7)


# -- kernel_rope_norm_f32: rotary position embedding (pairs of neighbours), YaRN


def rope_reference(x, pos, n_dims, n_offs, freq_base, freq_scale, ext_factor, attn_factor,
                   beta_fast, beta_slow, n_ctx_orig, freq_factors):
    """RoPE "norm" mode with YaRN scaling, from the definitions, in float64. x: (..., tokens,
    heads, head_dim); channels [n_offs, n_offs + n_dims) rotate in neighbouring pairs."""
    def corr_dim(n_rot):
        return n_dims * math.log(n_ctx_orig / (n_rot * 2 * math.pi)) / (2 * math.log(freq_base))
    low = max(0.0, math.floor(corr_dim(beta_fast)))
    high = min(n_dims - 1.0, math.ceil(corr_dim(beta_slow)))
    out = x.astype(np.float64).copy()
    for iw in range(0, n_dims, 2):
        extrap = pos.astype(np.float64) * freq_base ** (-iw / n_dims) / freq_factors[iw // 2]
        theta, mscale = freq_scale * extrap, attn_factor
        if ext_factor != 0:
            ramp = 1 - min(1.0, max(0.0, (iw // 2 - low) / max(0.001, high - low)))
            mix = ramp * ext_factor
            theta = theta * (1 - mix) + extrap * mix
            mscale *= 1 + 0.1 * math.log(1 / freq_scale)
        c = (np.cos(theta) * mscale)[:, None]
        s = (np.sin(theta) * mscale)[:, None]
        x0 = x[..., n_offs + iw].astype(np.float64)
        x1 = x[..., n_offs + iw + 1].astype(np.float64)
        out[..., n_offs + iw] = x0 * c - x1 * s
        out[..., n_offs + iw + 1] = x0 * s + x1 * c
    return out


@pytest.mark.parametrize("case", ["full", "yarn_partial_freq_factors"])
def test_kernel_rope_norm_f32(rt, rng, case):
    if case == "full":
        shape, n_dims, n_offs, freq_scale, ext_factor = (2, 6, 3, 64), 64, 0, 1.0, 0.0
    else:  # 32 of 48 channels from channel 8 rotate; YaRN mixes interpolation in
        shape, n_dims, n_offs, freq_scale, ext_factor = (1, 5, 4, 48), 32, 8, 0.25, 1.0
    ne03, ne02, ne01, ne00 = shape  # batch, tokens, heads, head size
    x = rng.standard_normal(shape).astype(np.float32)
    dst = np.zeros(shape, np.float32)
    pos = rng.integers(0, 200, ne02).astype(np.int32)
    with_factors = case != "full"
    factors = rng.uniform(1.0, 8.0, n_dims // 2).astype(np.float32)
    freq_base, attn_factor, beta_fast, beta_slow, n_ctx_orig = 10000.0, 0.9, 32.0, 1.0, 4096

    nb, nbd = strides(x), strides(dst)
    args = kargs(KARGS_ROPE, ne00=ne00, ne01=ne01, ne02=ne02, ne03=ne03,
                 nb00=nb[0], nb01=nb[1], nb02=nb[2], nb03=nb[3],
                 ne0=ne00, ne1=ne01, ne2=ne02, ne3=ne03,
                 nb0=nbd[0], nb1=nbd[1], nb2=nbd[2], nb3=nbd[3],
                 n_past=0, n_dims=n_dims, n_offs=n_offs, n_ctx_orig=n_ctx_orig,
                 freq_base=freq_base, freq_scale=freq_scale, ext_factor=ext_factor,
                 attn_factor=attn_factor, beta_fast=beta_fast, beta_slow=beta_slow,
                 sect_0=0, sect_1=0, sect_2=0, sect_3=0, src2=with_factors, inplace=False)
    src0 = raw(x)
    dispatch(rt, ggml_kernel("kernel_rope_norm_f32", FC_rope_is_imrope=False,
                             FC_rope_is_back=False),
             (ne01, ne02, ne03), (min(1024, ne00), 1, 1), args=args, src0=src0,
             src1=raw(pos), src2=raw(factors) if with_factors else src0, dst=raw(dst))

    want = rope_reference(x, pos, n_dims, n_offs, freq_base, freq_scale, ext_factor,
                          attn_factor, beta_fast, beta_slow, n_ctx_orig,
                          factors.astype(np.float64) if with_factors else np.ones(n_dims // 2))
    # angles up to 200 rad computed in float32 (pow, a product): ~2e-7 relative, so ~4e-5 rad
    np.testing.assert_allclose(dst, want, rtol=1e-4, atol=5e-4)


# -- matrix times vectors: kernel_mul_mv_f16_f32 and kernel_mul_mv_q4_0_f32


def test_kernel_mul_mv_f16_f32(rt, rng):
    ne00, ne01, ne02 = 301, 37, 1   # src0: 37 half rows of 301 (ne00 % 4 != 0: not the _4 kernel)
    ne11, ne12 = 3, 2               # src1: 3 float rows in each of 2 batches (r2 = 2: broadcast)
    nsg, nr0 = min(4, (ne00 + 127) // 128), 2  # ggml_metal_library_get_pipeline_mul_mv
    # ggml's buffers are padded: the last threadgroup reads row ne01 (37) of its pair
    w = np.zeros((ne02, ne01 + 1, ne00), np.float16)
    w[:, :ne01] = rng.standard_normal((ne02, ne01, ne00)).astype(np.float16)
    y = rng.standard_normal((ne12, ne11, ne00)).astype(np.float32)
    dst = np.zeros((ne12, ne11, ne01), np.float32)
    nbw, nby = strides(w), strides(y)
    args = kargs(KARGS_MUL_MV, ne00=ne00, ne01=ne01, ne02=ne02,
                 nb00=nbw[0], nb01=nbw[1], nb02=nbw[2], nb03=nbw[3],
                 ne10=ne00, ne11=ne11, ne12=ne12, nb10=nby[0], nb11=nby[1], nb12=nby[2],
                 nb13=nby[3], ne0=ne01, ne1=ne11, nr0=nr0, r2=ne12 // ne02, r3=1)
    k = ggml_kernel("kernel_mul_mv_f16_f32", FC_mul_mv_nsg=nsg, FC_mul_mv_ne12=ne12,
                    FC_mul_mv_r2=ne12 // ne02, FC_mul_mv_r3=1)
    dispatch(rt, k, ((ne01 + nr0 - 1) // nr0, ne11, ne12), (32, nsg, 1), smem=32 * 4 * nr0,
             args=args, src0=raw(w), src1=raw(y), dst=raw(dst))

    w64, y64 = w[0, :ne01].astype(np.float64), y.astype(np.float64)
    want = np.einsum("bjk,ik->bji", y64, w64)
    assert_dot_close(dst, want, np.einsum("bjk,ik->bji", np.abs(y64), np.abs(w64)), ne00,
                     "kernel_mul_mv_f16_f32")


def quantize_q4_0(x):
    """Rows of float -> rows of block_q4_0: per 32 values a half scale d and 4-bit q with
    x ~ d * (q - 8); element j of a block in the low nibble of qs[j], j + 16 in the high."""
    blocks = x.reshape(x.shape[:-1] + (-1, QK4_0))
    amax = np.abs(blocks).max(axis=-1, keepdims=True)
    d = (amax / 8).astype(np.float16)
    q = np.round(blocks / np.maximum(d.astype(np.float64), 1e-30)) + 8
    q = np.clip(q, 0, 15).astype(np.uint8)
    out = np.zeros(blocks.shape[:-1], BLOCK_Q4_0)
    out["d"] = d[..., 0]
    out["qs"] = q[..., :16] | (q[..., 16:] << 4)
    return out


def dequantize_q4_0(b):
    q = np.concatenate([b["qs"] & 15, b["qs"] >> 4], axis=-1).astype(np.float64)
    x = b["d"].astype(np.float64)[..., None] * (q - 8)
    return x.reshape(b.shape[:-1] + (-1,))


def test_kernel_mul_mv_q4_0_f32(rt, rng):
    ne00, ne01, ne11 = 11 * QK4_0, 45, 3  # 11 blocks a row; 45 rows: a partial last threadgroup
    nsg, nr0 = 2, 4                        # N_SG_Q4_0, N_R0_Q4_0
    rows_per_group = nr0 * nsg
    padded = (ne01 + rows_per_group - 1) // rows_per_group * rows_per_group
    # every simdgroup reads its nr0 rows whole: ggml's buffers are padded past the last
    w = quantize_q4_0(rng.standard_normal((padded, ne00)).astype(np.float32))
    y = rng.standard_normal((ne11, ne00)).astype(np.float32)
    dst = np.zeros((ne11, ne01), np.float32)
    row_bytes = w.shape[1] * BLOCK_Q4_0.itemsize
    nby = strides(y)
    args = kargs(KARGS_MUL_MV, ne00=ne00, ne01=ne01, ne02=1,
                 nb00=BLOCK_Q4_0.itemsize, nb01=row_bytes, nb02=row_bytes * ne01,
                 nb03=row_bytes * ne01, ne10=ne00, ne11=ne11, ne12=1,
                 nb10=nby[0], nb11=nby[1], nb12=nby[2], nb13=nby[2],
                 ne0=ne01, ne1=ne11, nr0=nr0, r2=1, r3=1)
    k = ggml_kernel("kernel_mul_mv_q4_0_f32", FC_mul_mv_nsg=nsg, FC_mul_mv_ne12=1,
                    FC_mul_mv_r2=1, FC_mul_mv_r3=1)
    # ggml sets the threadgroup memory of q4_0 to 0 bytes: this kernel does not use it
    dispatch(rt, k, ((ne01 + rows_per_group - 1) // rows_per_group, ne11, 1), (32, nsg, 1),
             smem=0, args=args, src0=raw(w), src1=raw(y), dst=raw(dst))

    w64, y64 = dequantize_q4_0(w[:ne01]), y.astype(np.float64)
    want = y64 @ w64.T
    # the kernel sums d*q*y and subtracts 8*d*sum(y): the scale of its terms is 16*|d|*|y|
    d_abs = np.repeat(np.abs(w["d"][:ne01].astype(np.float64)), QK4_0, axis=-1)
    assert_dot_close(dst, want, np.abs(y64) @ (16 * d_abs).T, ne00, "kernel_mul_mv_q4_0_f32")


# -- matrix times matrix: kernel_mul_mm_f16_f32 (simdgroup matrices, 64x32 tiles)


# the "edges" case stores float4s at float addresses (rows of ne01 = 70 floats), as Apple's GPUs
# allow: the cuda backend tests such addresses at run time (emit.c, vectors at unproven addresses)


# both take the cpu backend's wide mode (emit_wide.c); with bc_out, its edge store loops over
# i inside a loop over j whose trip count differs per thread, and stores float4s at float
# addresses
@pytest.mark.parametrize("src1_type", ["f32", "f16"])
@pytest.mark.parametrize("case", ["aligned", "edges"])
def test_kernel_mul_mm_f16(rt, rng, case, src1_type):
    if case == "aligned":  # whole 64x32 tiles, K a multiple of 32: no bounds checks
        ne00, ne01, ne02, ne11, ne12 = 128, 128, 1, 64, 2
    else:  # K = 100, a 70x40 result: partial tiles on both sides, bounds-checked K
        ne00, ne01, ne02, ne11, ne12 = 100, 70, 2, 40, 2
    bc_inp, bc_out = ne00 % 32 != 0, (ne01 % 64 != 0 or ne11 % 32 != 0)
    r2 = ne12 // ne02
    w = rng.standard_normal((ne02, ne01, ne00)).astype(np.float16)
    y = rng.standard_normal((ne12, ne11, ne00)).astype(np.float32 if src1_type == "f32" else np.float16)
    dst = np.zeros((ne12, ne11, ne01), np.float32)
    nbw, nby = strides(w), strides(y)
    args = kargs(KARGS_MUL_MM, ne00=ne00, ne02=ne02, nb01=nbw[1], nb02=nbw[2], nb03=nbw[3],
                 ne12=ne12, nb10=nby[0], nb11=nby[1], nb12=nby[2], nb13=nby[3],
                 ne0=ne01, ne1=ne11, r2=r2, r3=1)
    name = "kernel_mul_mm_f16_" + src1_type
    k = ggml_kernel(name, FC_mul_mm_bc_inp=bc_inp, FC_mul_mm_bc_out=bc_out,
                    FC_mul_mm_ne12=ne12, FC_mul_mm_ne13=1, FC_mul_mm_r2=r2, FC_mul_mm_r3=1)
    dispatch(rt, k, ((ne11 + 31) // 32, (ne01 + 63) // 64, ne12), (32, 4, 1),
             smem=8192 if bc_out else 4096 + 2048,
             args=args, src0=raw(w), src1=raw(y), dst=raw(dst))

    # the kernel stages src1 in threadgroup memory as half: round it as it does
    y64 = y.astype(np.float16).astype(np.float64)
    w64 = w.astype(np.float64)[np.arange(ne12) // r2]
    want = np.einsum("bjk,bik->bji", y64, w64)
    assert_dot_close(dst, want, np.einsum("bjk,bik->bji", np.abs(y64), np.abs(w64)), ne00,
                     "%s (%s)" % (name, case))


# -- kernel_get_rows_q8_0: gather quantised rows, dequantised to float


def quantize_q8_0(x):
    blocks = x.reshape(x.shape[:-1] + (-1, QK8_0))
    d = (np.abs(blocks).max(axis=-1, keepdims=True) / 127).astype(np.float16)
    q = np.clip(np.round(blocks / np.maximum(d.astype(np.float64), 1e-30)), -127, 127)
    out = np.zeros(blocks.shape[:-1], BLOCK_Q8_0)
    out["d"] = d[..., 0]
    out["qs"] = q.astype(np.int8)
    return out


@pytest.mark.parametrize("ne00", [13 * QK8_0, 550 * QK8_0])
def test_kernel_get_rows_q8_0(rt, rng, ne00):
    """550 blocks: 1100 threads' work a row, more than a threadgroup holds, so each row takes
    two threadgroups (ggml's nw0)."""
    ne01, ne02 = 50, 2             # src0: 2 matrices of 50 rows
    ne10, ne11 = 7, ne02           # indices: 7 rows picked from each matrix
    w = quantize_q8_0(rng.standard_normal((1, ne02, ne01, ne00)).astype(np.float32))
    ids = rng.integers(0, ne01, (1, ne11, ne10)).astype(np.int32)
    dst = np.zeros((1, ne11, ne10, ne00), np.float32)
    row_bytes = w.shape[-1] * BLOCK_Q8_0.itemsize
    nbi, nbd = strides(ids), strides(dst)
    ne00t = ne00 // 16  # a thread dequantises 16 values
    nth = min(ne00t, rt.device_capabilities().max_threads_per_threadgroup)
    nw0 = (ne00t + nth - 1) // nth
    args = kargs(KARGS_GET_ROWS, ne00t=ne00t, ne00=ne00, nb01=row_bytes, nb02=row_bytes * ne01,
                 nb03=row_bytes * ne01 * ne02, ne10=ne10, nb10=nbi[0], nb11=nbi[1], nb12=nbi[2],
                 nb1=nbd[1], nb2=nbd[2], nb3=nbd[3])
    dispatch(rt, ggml_kernel("kernel_get_rows_q8_0"), (nw0 * ne10, ne11, 1), (nth, 1, 1),
             args=args, src0=raw(w), src1=raw(ids), dst=raw(dst))

    deq = w["d"].astype(np.float32)[..., None] * w["qs"].astype(np.float32)
    deq = deq.reshape(w.shape[:-1] + (ne00,))
    want = deq[0][np.arange(ne11)[:, None], ids[0]]
    # q * d with a 7-bit q and an 11-bit d is exact in float32
    np.testing.assert_array_equal(dst[0], want)


# -- kernel_argsort_f32_i32: a bitonic sort of each row's indices in threadgroup memory, a
# thread per column padded to a power of two; each step's SWAP(shmem[col], shmem[col ^ j]) is a
# statement whose load (the partner's slot) another thread of the SIMD group stores to: wide
# mode runs it as every thread's loads, then the stores


@pytest.mark.parametrize("order", ["asc", "desc"])
@pytest.mark.parametrize("ne00", [100, 256])
def test_kernel_argsort_f32_i32(rt, rng, order, ne00):
    ne01, ne02 = 5, 3
    x = rng.permutation(ne00 * ne01 * ne02).astype(np.float32).reshape(1, ne02, ne01, ne00) - 700.5
    dst = np.full((1, ne02, ne01, ne00), -1, np.int32)
    nb = strides(x)
    threads = 1 << (ne00 - 1).bit_length()  # ggml: the row padded to a power of two
    args = kargs(KARGS_ARGSORT, ne00=ne00, ne01=ne01, ne02=ne02, ne03=1, nb00=nb[0], nb01=nb[1], nb02=nb[2],
                 nb03=nb[3], ne0=ne00, ne1=ne01, ne2=ne02, ne3=1, top_k=ne00)
    dispatch(rt, ggml_kernel("kernel_argsort_f32_i32_" + order), (ne01, ne02, 1), (threads, 1, 1),
             smem=threads * 4, args=args, src0=raw(x), dst=dst.reshape(-1))
    want = np.argsort(x if order == "asc" else -x, axis=-1, kind="stable")  # distinct values
    np.testing.assert_array_equal(dst, want.astype(np.int32))


# -- kernel_flash_attn_ext_f16_dk64_dv64 (with the mask-block scan it needs first)


def flash_attn_args(q, k, v, mask, scale):
    """ggml_metal_kargs_flash_attn_ext for q (1, heads, queries, D) float, k and v (1, KV heads,
    keys, D) half and mask (1, 1, rows, keys) half; the vec kernel's struct has the same fields"""
    nbq, nbk, nbv, nbm = strides(q), strides(k), strides(v), strides(mask)
    n_head, n_q = q.shape[1], q.shape[2]
    return kargs(KARGS_FLASH_ATTN_EXT, ne01=n_q, ne02=n_head, ne03=1,
                 nb01=nbq[1], nb02=nbq[2], nb03=nbq[3],
                 ne11=k.shape[2], ne_12_2=k.shape[1], ne_12_3=1, ns10=nbk[1] // nbk[0],
                 nb11=nbk[1], nb12=nbk[2], nb13=nbk[3],
                 ns20=nbv[1] // nbv[0], nb21=nbv[1], nb22=nbv[2], nb23=nbv[3],
                 ne31=mask.shape[2], ne32=1, ne33=1, nb31=nbm[1], nb32=nbm[2], nb33=nbm[3],
                 ne1=n_head, ne2=n_q, ne3=1, scale=scale, max_bias=0.0,
                 m0=1.0, m1=1.0, n_head_log2=1 << int(math.floor(math.log2(n_head))), logit_softcap=0.0)


def flash_attn_want(q, k, v, mask, sinks, scale):
    """The attention in float64 (query, head, D), with ggml's sinks; the kernels keep Q in half
    in threadgroup memory, so it is rounded as they do"""
    n_head, n_q = q.shape[1], q.shape[2]
    q64 = q.astype(np.float16).astype(np.float64)[0]                  # head, query, D
    kv_head = np.arange(n_head) // (n_head // k.shape[1])
    k64, v64 = k.astype(np.float64)[0][kv_head], v.astype(np.float64)[0][kv_head]
    logits = np.einsum("hqd,hkd->hqk", q64, k64) * scale + mask[0, 0, :n_q].astype(np.float64)
    sink = sinks.astype(np.float64)[:, None, None]
    m = np.maximum(logits.max(axis=-1, keepdims=True), sink)
    p = np.exp(logits - m)
    denominator = p.sum(axis=-1) + np.exp(sink - m)[..., 0]                  # head, query
    return np.einsum("hqk,hkd->qhd", p, v64) / denominator.T[..., None]


def flash_attn_blocks(mask, n_q, Q, C):
    """What kernel_flash_attn_ext_blk computes for each Q x C block of the mask: 0 masked
    through (skipped), 2 all zero (mask not read), 1 otherwise (also partial blocks)."""
    ne31, ne30 = mask.shape[-2:]
    nblk1, nblk0 = (n_q + Q - 1) // Q, (ne30 + C - 1) // C
    blk = np.zeros((nblk1, nblk0), np.int8)
    for i1 in range(nblk1):
        for i0 in range(nblk0):
            if i0 * C + C > ne30:
                blk[i1, i0] = 1
                continue
            b = mask[i1 * Q:(i1 + 1) * Q, i0 * C:(i0 + 1) * C].astype(np.float64)
            if b.max() > -MAXHALF:
                blk[i1, i0] = 2 if b.min() == 0 and b.max() == 0 else 1
    return blk


def test_kernel_flash_attn_ext_f16_dk64_dv64(rt, rng):
    D = 64
    n_q, n_head, n_head_kv, n_kv = 21, 4, 2, 256  # 21 queries: 3 threadgroups, the last partial
    Q, C, nsg = 8, 64, 4                           # OP_FLASH_ATTN_EXT_NQPSG/NCPSG; ne00 < 512
    n_mask_rows = (n_q + Q - 1) // Q * Q           # ggml pads the mask's rows (no bounds checks)
    scale = 1 / math.sqrt(D)

    q = rng.standard_normal((1, n_head, n_q, D)).astype(np.float32)
    k = rng.standard_normal((1, n_head_kv, n_kv, D)).astype(np.float16)
    v = rng.standard_normal((1, n_head_kv, n_kv, D)).astype(np.float16)
    sinks = rng.standard_normal(n_head).astype(np.float32)
    # a sliding window of 150 positions ending at each query (the queries are the cache's last
    # 21): the first key block masked for all, the third visible to all, a random bias on the
    # last one; the padding rows masked
    qpos = n_kv - n_q + np.arange(n_mask_rows)[:, None]
    kpos = np.arange(n_kv)[None, :]
    visible = (kpos <= qpos) & (kpos > qpos - 150) & (np.arange(n_mask_rows)[:, None] < n_q)
    mask = np.where(visible, 0.0, -np.inf)
    mask[:, 192:] += np.where(visible[:, 192:], -rng.random((n_mask_rows, n_kv - 192)), 0.0)
    mask = mask.astype(np.float16)[None, None]
    dst = np.zeros((1, n_q, n_head, D), np.float32)

    # 1. the blocks of the mask (kernel_flash_attn_ext_blk), as ggml's host runs it first
    blk_want = flash_attn_blocks(mask[0, 0], n_q, Q, C)
    assert set(np.unique(blk_want)) == {0, 1, 2}
    blk = np.full(32, -1, np.int8)  # GGML_PAD(nblk, 32) bytes
    nbm = strides(mask)
    args_blk = kargs(KARGS_FLASH_ATTN_EXT_BLK, ne01=n_q, ne30=n_kv, ne31=n_mask_rows, ne32=1,
                     ne33=1, nb31=nbm[1], nb32=nbm[2], nb33=nbm[3])
    dispatch(rt, ggml_kernel("kernel_flash_attn_ext_blk", FC_flash_attn_ext_blk_nqptg=Q,
                             FC_flash_attn_ext_blk_ncpsg=C),
             (blk_want.shape[1], blk_want.shape[0], 1), (32, 1, 1),
             args=args_blk, mask=raw(mask), dst=raw(blk))
    np.testing.assert_array_equal(blk[:blk_want.size].reshape(blk_want.shape), blk_want)

    # 2. the attention
    nbk, nbv = strides(k), strides(v)
    args = flash_attn_args(q, k, v, mask, scale)
    kern = ggml_kernel("kernel_flash_attn_ext_f16_dk64_dv64",
                       FC_flash_attn_ext_has_mask=True, FC_flash_attn_ext_has_sinks=True,
                       FC_flash_attn_ext_has_bias=False, FC_flash_attn_ext_has_scap=False,
                       FC_flash_attn_ext_has_kvpad=False, FC_flash_attn_ext_bc_mask=False,
                       FC_flash_attn_ext_ns10=nbk[1] // nbk[0],
                       FC_flash_attn_ext_ns20=nbv[1] // nbv[0], FC_flash_attn_ext_nsg=nsg)
    # FATTN_SMEM: per query the head, two padded value rows and 2*(2*C) scores, in halves
    smem = (Q * (D + 2 * D + 2 * (2 * C)) * 2 + 15) // 16 * 16
    out = raw(dst)
    dispatch(rt, kern, ((n_q + Q - 1) // Q, n_head, 1), (32, nsg, 1), smem=smem,
             args=args, q=raw(q), k=raw(k), v=raw(v), mask=raw(mask), sinks=raw(sinks),
             pad=out, blk=raw(blk), dst=out)  # no KV padding: ggml binds dst's tail as pad

    want = flash_attn_want(q, k, v, mask, sinks, scale)
    # float32 scores and weights (online soft-max), a float32 sum of up to 256 weighted values
    np.testing.assert_allclose(dst[0], want, rtol=1e-4, atol=1e-4)


# -- kernel_flash_attn_ext_vec_f16_dk64_dv64: one query per threadgroup (decoding); each SIMD
# group walks its own 32-key chunks (a loop left by a break, chunks all masked skipped by a
# continue after simd_max), the SIMD groups' partial results merged through threadgroup
# memory (lane 0 of each SIMD group rewrites the ss[0] and ss[1] that all its lanes have just
# read: wide mode must not fuse those statements into one loop over the threads); NWG = 1:
# the results go straight to dst


@pytest.mark.parametrize("nsg", [2, 4])
def test_kernel_flash_attn_ext_vec_f16_dk64_dv64(rt, rng, nsg):
    D, C = 64, 32                               # OP_FLASH_ATTN_EXT_VEC_NCPSG
    n_q, n_head, n_head_kv, n_kv = 3, 4, 2, 224  # 7 chunks: SIMD groups of 1 to 4 chunks
    scale = 1 / math.sqrt(D)
    q = rng.standard_normal((1, n_head, n_q, D)).astype(np.float32)
    k = rng.standard_normal((1, n_head_kv, n_kv, D)).astype(np.float16)
    v = rng.standard_normal((1, n_head_kv, n_kv, D)).astype(np.float16)
    sinks = rng.standard_normal(n_head).astype(np.float32)
    # query i sees keys up to n_kv - n_q + i, except chunk 2 (all masked: the continue) and
    # with a random bias on the last chunk
    visible = np.arange(n_kv)[None, :] <= n_kv - n_q + np.arange(n_q)[:, None]
    visible[:, 2 * C:3 * C] = False
    mask = np.where(visible, 0.0, -np.inf)
    mask[:, 6 * C:] += np.where(visible[:, 6 * C:], -rng.random((n_q, n_kv - 6 * C)), 0.0)
    mask = mask.astype(np.float16)[None, None]
    dst = np.zeros((1, n_q, n_head, D), np.float32)
    nbk, nbv = strides(k), strides(v)
    args = flash_attn_args(q, k, v, mask, scale)
    kern = ggml_kernel("kernel_flash_attn_ext_vec_f16_dk64_dv64",
                       FC_flash_attn_ext_vec_has_mask=True, FC_flash_attn_ext_vec_has_sinks=True,
                       FC_flash_attn_ext_vec_has_bias=False, FC_flash_attn_ext_vec_has_scap=False,
                       FC_flash_attn_ext_vec_has_kvpad=False,
                       FC_flash_attn_ext_vec_ns10=nbk[1] // nbk[0], FC_flash_attn_ext_vec_ns20=nbv[1] // nbv[0],
                       FC_flash_attn_ext_vec_nsg=nsg, FC_flash_attn_ext_vec_nwg=1)
    # in halves: the query padded to 128, per SIMD group 4*C scores and two padded value rows
    smem = (nsg * 128 + nsg * 4 * C + 2 * nsg * 128) * 2
    out = raw(dst)
    dispatch(rt, kern, (n_q, n_head, 1), (32, nsg, 1), smem=smem,
             args=args, q=raw(q), k=raw(k), v=raw(v), mask=raw(mask), sinks=raw(sinks), pad=out, dst=out)

    want = flash_attn_want(q, k, v, mask, sinks, scale)
    np.testing.assert_allclose(dst[0], want, rtol=1e-3, atol=1e-3)  # half scores and weights
