"""Floating-point built-ins (Metal spec, "Math functions", "Geometric functions",
"Relational functions"): each function in its own kernel, on fresh random inputs, against
NumPy in float64. Inputs stay inside each function's well-conditioned domain so that the
tolerance measures enigma, not the condition number."""
import numpy as np
import pytest

from semharness import close, exact, floats, garbage

N = 1000          # elements; dispatched by threads with groups of 64, so the last is partial
HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"


def msl_round(x):  # Metal's round: halfway cases away from zero
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def fract(x):
    return np.minimum(x - np.floor(x), np.float64(np.nextafter(np.float32(1), np.float32(0))))


# name: (reference on float64, lo, hi)
UNARY = {
    "fabs": (np.abs, -100, 100),
    "abs": (np.abs, -100, 100),
    "floor": (np.floor, -100, 100),
    "ceil": (np.ceil, -100, 100),
    "round": (msl_round, -100, 100),
    "rint": (np.rint, -100, 100),
    "trunc": (np.trunc, -100, 100),
    "fract": (fract, -100, 100),
    "exp": (np.exp, -10, 10),
    "exp2": (np.exp2, -20, 20),
    "exp10": (lambda x: 10.0 ** x, -6, 6),
    "log": (np.log, 1e-3, 1e3),
    "log2": (np.log2, 1e-3, 1e3),
    "log10": (np.log10, 1e-3, 1e3),
    "sqrt": (np.sqrt, 1e-3, 1e4),
    "rsqrt": (lambda x: 1 / np.sqrt(x), 1e-3, 1e4),
    "sin": (np.sin, -10, 10),
    "cos": (np.cos, -10, 10),
    "tan": (np.tan, -1.3, 1.3),
    "asin": (np.arcsin, -0.99, 0.99),
    "acos": (np.arccos, -0.99, 0.99),
    "atan": (np.arctan, -20, 20),
    "sinh": (np.sinh, -5, 5),
    "cosh": (np.cosh, -5, 5),
    "tanh": (np.tanh, -5, 5),
    "asinh": (np.arcsinh, -20, 20),
    "acosh": (np.arccosh, 1.01, 20),
    "atanh": (np.arctanh, -0.95, 0.95),
    "sinpi": (lambda x: np.sin(np.pi * x), -4, 4),
    "cospi": (lambda x: np.cos(np.pi * x), -4, 4),
    "tanpi": (lambda x: np.tan(np.pi * x), -0.4, 0.4),
    "sign": (np.sign, -10, 10),
    "saturate": (lambda x: np.clip(x, 0, 1), -2, 2),
}

UNARY_SRC = HEADER + """
kernel void k(device const float* a [[buffer(0)]], device float* out [[buffer(1)]],
              uint i [[thread_position_in_grid]]) {
    out[i] = FN(a[i]);
}
"""


@pytest.mark.parametrize("fn", sorted(UNARY))
def test_unary_float(fn, run, rng):
    ref, lo, hi = UNARY[fn]
    a = floats(rng, N, lo, hi)
    out = run(UNARY_SRC.replace("FN", fn), {"a": a, "out": garbage(rng, N)}, ["out"],
              grid=N, threads=64)["out"]
    close(out, ref(a.astype(np.float64)), rtol=4e-6, atol=4e-6, what=fn)


BINARY = {
    "fmin": (np.fmin, -50, 50, -50, 50),
    "fmax": (np.fmax, -50, 50, -50, 50),
    "min": (np.minimum, -50, 50, -50, 50),
    "max": (np.maximum, -50, 50, -50, 50),
    "fmod": (np.fmod, -50, 50, 0.5, 7),
    "fdim": (lambda x, y: np.maximum(x - y, 0), -50, 50, -50, 50),
    "pow": (np.power, 0.01, 8, -4, 4),
    "powr": (np.power, 0.01, 8, -4, 4),
    "atan2": (np.arctan2, -10, 10, -10, 10),
    "copysign": (np.copysign, -10, 10, -10, 10),
    "step": (lambda e, x: np.where(x < e, 0.0, 1.0), -1, 1, -1, 1),
}

BINARY_SRC = HEADER + """
kernel void k(device const float* a [[buffer(0)]], device const float* b [[buffer(1)]],
              device float* out [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    out[i] = FN(a[i], b[i]);
}
"""


@pytest.mark.parametrize("fn", sorted(BINARY))
def test_binary_float(fn, run, rng):
    ref, alo, ahi, blo, bhi = BINARY[fn]
    a = floats(rng, N, alo, ahi)
    b = floats(rng, N, blo, bhi)
    out = run(BINARY_SRC.replace("FN", fn), {"a": a, "b": b, "out": garbage(rng, N)}, ["out"],
              grid=N, threads=64)["out"]
    close(out, ref(a.astype(np.float64), b.astype(np.float64)), rtol=4e-6, atol=4e-6, what=fn)


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)


TERNARY_SRC = HEADER + """
kernel void k(device const float* a [[buffer(0)]], device const float* b [[buffer(1)]],
              device const float* c [[buffer(2)]], device float* out [[buffer(3)]],
              uint i [[thread_position_in_grid]]) {
    out[i] = EXPR;
}
"""

TERNARY = {
    # name: (expression, reference(a, b, c), rtol)
    "fma": ("fma(a[i], b[i], c[i])", lambda a, b, c: a * b + c, 4e-6),
    "mad": ("mad(a[i], b[i], c[i])", lambda a, b, c: a * b + c, 4e-6),
    "clamp": ("clamp(a[i], min(b[i], c[i]), max(b[i], c[i]))",
              lambda a, b, c: np.clip(a, np.minimum(b, c), np.maximum(b, c)), 0),
    "mix": ("mix(a[i], b[i], c[i] * 0.1f + 0.5f)",
            lambda a, b, c: a + (b - a) * (np.float32(c) * np.float32(0.1) + np.float32(0.5)), 4e-6),
    "smoothstep": ("smoothstep(min(b[i], c[i]) - 0.5f, max(b[i], c[i]) + 0.5f, a[i])",
                   lambda a, b, c: smoothstep(np.minimum(b, c) - 0.5, np.maximum(b, c) + 0.5, a), 2e-5),
    "max3": ("max3(a[i], b[i], c[i])", lambda a, b, c: np.maximum(np.maximum(a, b), c), 0),
    "min3": ("min3(a[i], b[i], c[i])", lambda a, b, c: np.minimum(np.minimum(a, b), c), 0),
    "median3": ("median3(a[i], b[i], c[i])", lambda a, b, c: np.median(np.stack([a, b, c]), axis=0), 0),
}


@pytest.mark.parametrize("fn", sorted(TERNARY))
def test_ternary_float(fn, run, rng):
    expr, ref, rtol = TERNARY[fn]
    a, b, c = (floats(rng, N, -4, 4) for _ in range(3))
    out = run(TERNARY_SRC.replace("EXPR", expr), {"a": a, "b": b, "c": c, "out": garbage(rng, N)},
              ["out"], grid=N, threads=64)["out"]
    close(out, ref(*(x.astype(np.float64) for x in (a, b, c))), rtol=rtol, atol=1e-5, what=fn)


GEOMETRIC_SRC = HEADER + """
kernel void k(device const float4* a [[buffer(0)]], device const float4* b [[buffer(1)]],
              device float4* out [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    float4 x = a[i], y = b[i];
    float3 c = cross(x.xyz, y.xyz);
    float3 n = normalize(x.xyz);
    out[i] = float4(dot(x, y) + c.x, length(x) + c.y, distance(x.xy, y.xy) + c.z,
                    n.x * 100.0f + n.y * 10.0f + n.z);
}
"""


def test_geometric(run, rng):
    n = 500
    a = floats(rng, (n, 4), -3, 3)
    b = floats(rng, (n, 4), -3, 3)
    out = run(GEOMETRIC_SRC, {"a": a, "b": b, "out": garbage(rng, (n, 4))}, ["out"],
              grid=n, threads=32)["out"]
    x, y = a.astype(np.float64), b.astype(np.float64)
    c = np.cross(x[:, :3], y[:, :3])
    nrm = x[:, :3] / np.linalg.norm(x[:, :3], axis=1, keepdims=True)
    want = np.stack([np.sum(x * y, axis=1) + c[:, 0], np.linalg.norm(x, axis=1) + c[:, 1],
                     np.linalg.norm(x[:, :2] - y[:, :2], axis=1) + c[:, 2],
                     nrm[:, 0] * 100 + nrm[:, 1] * 10 + nrm[:, 2]], axis=1)
    close(out, want, rtol=1e-5, atol=2e-5, what="geometric")


CLASSIFY_SRC = HEADER + """
kernel void k(device const float* a [[buffer(0)]], device int* out [[buffer(1)]],
              uint i [[thread_position_in_grid]]) {
    float x = a[i];
    out[i] = (isnan(x) ? 1 : 0) | (isinf(x) ? 2 : 0) | (isfinite(x) ? 4 : 0) | (signbit(x) ? 8 : 0);
}
"""


def test_classification(run, rng):
    a = floats(rng, N, -1e3, 1e3)
    specials = np.array([np.inf, -np.inf, np.nan, -np.nan, -0.0, 1e-40, -1e-40, 3.4e38], np.float32)
    a[rng.choice(N, 200, replace=False)] = rng.choice(specials, 200)
    out = run(CLASSIFY_SRC, {"a": a, "out": garbage(rng, N, np.int32)}, ["out"], grid=N, threads=64)["out"]
    want = (np.isnan(a) * 1 | np.isinf(a) * 2 | np.isfinite(a) * 4 | np.signbit(a) * 8).astype(np.int32)
    exact(out, want, "isnan/isinf/isfinite/signbit")


FREXP_SRC = HEADER + """
kernel void k(device const float* a [[buffer(0)]], device float* mant [[buffer(1)]],
              device int* expo [[buffer(2)]], device float* whole [[buffer(3)]],
              device float* frac [[buffer(4)]], device float* scaled [[buffer(5)]],
              uint i [[thread_position_in_grid]]) {
    int e;
    mant[i] = frexp(a[i], e);
    expo[i] = e;
    float w;
    frac[i] = modf(a[i], w);
    whole[i] = w;
    scaled[i] = ldexp(a[i], int(i % 11) - 5);
}
"""


def test_frexp_modf_ldexp(run, rng):
    a = floats(rng, N, -1e4, 1e4)
    ins = {"a": a}
    names = ["mant", "expo", "whole", "frac", "scaled"]
    for name in names:
        ins[name] = garbage(rng, N, np.int32 if name == "expo" else np.float32)
    r = run(FREXP_SRC, ins, names, grid=N, threads=64)
    m, e = np.frexp(a.astype(np.float64))
    exact(r["mant"].astype(np.float64), m, "frexp mantissa")
    exact(r["expo"], e.astype(np.int32), "frexp exponent")
    fr, wh = np.modf(a.astype(np.float64))
    exact(r["whole"].astype(np.float64), wh, "modf whole")
    close(r["frac"], fr, rtol=0, atol=1e-12, what="modf fraction")
    exact(r["scaled"].astype(np.float64), np.ldexp(a.astype(np.float64), np.arange(N) % 11 - 5), "ldexp")


SELECT_SRC = HEADER + """
kernel void k(device const float4* a [[buffer(0)]], device const float4* b [[buffer(1)]],
              device float4* out [[buffer(2)]], device int* flags [[buffer(3)]],
              uint i [[thread_position_in_grid]]) {
    bool4 c = a[i] > b[i];
    out[i] = select(a[i], b[i], c);   // c ? b : a, lane by lane
    flags[i] = (all(c) ? 1 : 0) + (any(c) ? 2 : 0) + (select(5, 7, a[i].x < 0.0f));
}
"""


def test_select_all_any(run, rng):
    n = 600
    a = floats(rng, (n, 4), -1, 1)
    b = floats(rng, (n, 4), -1, 1)
    b[::7] = a[::7] - 1   # all lanes greater
    b[::11] = a[::11] + 1  # none
    r = run(SELECT_SRC, {"a": a, "b": b, "out": garbage(rng, (n, 4)), "flags": garbage(rng, n, np.int32)},
            ["out", "flags"], grid=n, threads=64)
    c = a > b
    exact(r["out"], np.where(c, b, a), "select")
    want = c.all(axis=1) * 1 + c.any(axis=1) * 2 + np.where(a[:, 0] < 0, 7, 5)
    exact(r["flags"], want.astype(np.int32), "all/any/scalar select")


FAST_PRECISE_SRC = HEADER + """
kernel void k(device const float* a [[buffer(0)]], device float* out [[buffer(1)]],
              uint i [[thread_position_in_grid]]) {
    out[i] = precise::sin(a[i]) + fast::exp(a[i] * 0.5f) + precise::sqrt(fabs(a[i])) + metal::cos(a[i]);
}
"""


def test_fast_and_precise_namespaces(run, rng):
    a = floats(rng, N, -6, 6)
    out = run(FAST_PRECISE_SRC, {"a": a, "out": garbage(rng, N)}, ["out"], grid=N, threads=64)["out"]
    x = a.astype(np.float64)
    close(out, np.sin(x) + np.exp(x * 0.5) + np.sqrt(np.abs(x)) + np.cos(x), rtol=1e-5, atol=1e-5,
          what="precise::/fast::/metal::")


VECTOR_MATH_SRC = HEADER + """
kernel void k(device const float4* a [[buffer(0)]], device const float4* b [[buffer(1)]],
              device float4* out [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    float4 x = a[i], y = b[i];
    out[i] = clamp(x * y + sqrt(fabs(x)), float4(-2.0f), float4(3.0f)) + pow(fabs(y), float4(1.5f)) - floor(x);
}
"""


def test_vector_math(run, rng):
    n = 400
    a = floats(rng, (n, 4), -3, 3)
    b = floats(rng, (n, 4), -3, 3)
    out = run(VECTOR_MATH_SRC, {"a": a, "b": b, "out": garbage(rng, (n, 4))}, ["out"], grid=n, threads=16)["out"]
    x, y = a.astype(np.float64), b.astype(np.float64)
    want = np.clip(x * y + np.sqrt(np.abs(x)), -2, 3) + np.abs(y) ** 1.5 - np.floor(x)
    close(out, want, rtol=2e-5, atol=2e-5, what="component-wise vector math")


HALF_MATH_SRC = HEADER + """
kernel void k(device const half* a [[buffer(0)]], device half* out [[buffer(1)]],
              device float* wide [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    half x = a[i];
    out[i] = sqrt(x) + exp(x * 0.25h);       // half built-ins: the result is a half
    wide[i] = float(sin(x)) + cos(float(x));
}
"""


def test_half_math_functions(run, rng):
    a = floats(rng, N, 0.01, 8, dtype=np.float16)
    r = run(HALF_MATH_SRC, {"a": a, "out": garbage(rng, N, np.float16), "wide": garbage(rng, N)},
            ["out", "wide"], grid=N, threads=64)
    x = a.astype(np.float64)
    # half results: within a couple of half ulps of the exact value
    close(r["out"], np.sqrt(x) + np.exp(x * 0.25), rtol=3e-3, atol=1e-3, what="half sqrt + exp")
    close(r["wide"], np.sin(x) + np.cos(x), rtol=2e-3, atol=2e-3, what="half sin, float cos")
