"""Integer built-ins (Metal spec, "Integer functions") and integer arithmetic, checked with
exact Python integers on fresh random inputs."""
import numpy as np
import pytest

from semharness import exact, garbage, ints

N = 1000
HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"

U32 = 1 << 32


def s32(v):
    v &= U32 - 1
    return v - U32 if v >= 1 << 31 else v


def clz(v):
    v &= U32 - 1
    return 32 - v.bit_length()


def ctz(v):
    v &= U32 - 1
    return 32 if v == 0 else (v & -v).bit_length() - 1


def extract(x, off, bits, signed):
    if bits == 0:
        return 0
    v = ((x & (U32 - 1)) >> off) & ((1 << bits) - 1)
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def insert(base, ins, off, bits):
    mask = ((1 << bits) - 1) << off
    return (base & ~mask & (U32 - 1)) | ((ins << off) & mask)


def sat(v, signed):
    lo, hi = (-(1 << 31), (1 << 31) - 1) if signed else (0, U32 - 1)
    return min(max(v, lo), hi)


# name: (expression in a, b, c, reference(a, b, c, signed) on Python ints)
FUNCS = {
    "abs": ("abs(a)", lambda a, b, c, s: abs(a) if s else a),
    "min": ("min(a, b)", lambda a, b, c, s: min(a, b)),
    "max": ("max(a, b)", lambda a, b, c, s: max(a, b)),
    "clamp": ("clamp(a, min(b, c), max(b, c))", lambda a, b, c, s: min(max(a, min(b, c)), max(b, c))),
    "popcount": ("popcount(a)", lambda a, b, c, s: bin(a & (U32 - 1)).count("1")),
    "clz": ("clz(a)", lambda a, b, c, s: clz(a)),
    "ctz": ("ctz(a)", lambda a, b, c, s: ctz(a)),
    "mulhi": ("mulhi(a, b)", lambda a, b, c, s: (a * b) >> 32),
    "rotate": ("rotate(a, b)", lambda a, b, c, s: ((a & (U32 - 1)) << (b % 32) | (a & (U32 - 1)) >> (32 - b % 32)) & (U32 - 1)),
    "addsat": ("addsat(a, b)", lambda a, b, c, s: sat(a + b, s)),
    "subsat": ("subsat(a, b)", lambda a, b, c, s: sat(a - b, s)),
    "absdiff": ("absdiff(a, b)", lambda a, b, c, s: abs(a - b)),
    "hadd": ("hadd(a, b)", lambda a, b, c, s: (a + b) >> 1),
    "rhadd": ("rhadd(a, b)", lambda a, b, c, s: (a + b + 1) >> 1),
    "max3": ("max3(a, b, c)", lambda a, b, c, s: max(a, b, c)),
    "min3": ("min3(a, b, c)", lambda a, b, c, s: min(a, b, c)),
    "median3": ("median3(a, b, c)", lambda a, b, c, s: sorted([a, b, c])[1]),
    "reverse_bits": ("reverse_bits(a)", lambda a, b, c, s: int(format(a & (U32 - 1), "032b")[::-1], 2)),
    "extract_bits": ("extract_bits(a, uint(b) % 16u, uint(c) % 17u)",
                     lambda a, b, c, s: extract(a, (b & (U32 - 1)) % 16, (c & (U32 - 1)) % 17, s)),
    "insert_bits": ("insert_bits(a, b, uint(c) % 16u, (uint(c) >> 8u) % 17u)",
                    lambda a, b, c, s: insert(a, b, (c & (U32 - 1)) % 16, ((c & (U32 - 1)) >> 8) % 17)),
}

SRC = HEADER + """
kernel void k(device const T* as [[buffer(0)]], device const T* bs [[buffer(1)]],
              device const T* cs [[buffer(2)]], device RT* out [[buffer(3)]],
              uint i [[thread_position_in_grid]]) {
    T a = as[i], b = bs[i], c = cs[i];
    out[i] = RT(EXPR);
}
"""


@pytest.mark.parametrize("signed", [True, False], ids=["int", "uint"])
@pytest.mark.parametrize("fn", sorted(FUNCS))
def test_integer_function(fn, signed, run, rng):
    expr, ref = FUNCS[fn]
    t, dt = ("int", np.int32) if signed else ("uint", np.uint32)
    lo, hi = (-(1 << 31), 1 << 31) if signed else (0, 1 << 32)
    a, b, c = (ints(rng, N, lo, hi, dtype=np.int64) for _ in range(3))
    if fn in ("rotate",):
        b = ints(rng, N, 0, 64, dtype=np.int64)
    if fn == "abs" and signed:
        a[a == -(1 << 31)] = 5  # abs(INT_MIN) does not fit
    # functions whose result is unsigned in Metal: absdiff, popcount, clz, ctz keep T's type
    rt = "uint" if fn == "absdiff" else t
    rdt = np.uint32 if rt == "uint" else np.int32
    src = SRC.replace("RT", rt).replace("EXPR", expr).replace("T", t)
    out = run(src, {"as": a.astype(dt), "bs": b.astype(dt), "cs": c.astype(dt), "out": garbage(rng, N, rdt)},
              ["out"], grid=N, threads=64)["out"]
    want = [ref(int(x), int(y), int(z), signed) for x, y, z in zip(a, b, c)]
    want = np.array([w & (U32 - 1) for w in want], dtype=np.uint64).astype(np.uint32).view(rdt)
    exact(out, want, f"{fn}({t})")


MUL24_SRC = HEADER + """
kernel void k(device const int* as [[buffer(0)]], device const int* bs [[buffer(1)]],
              device const int* cs [[buffer(2)]], device int* out [[buffer(3)]],
              uint i [[thread_position_in_grid]]) {
    out[i] = mul24(as[i], bs[i]) ^ mad24(bs[i], cs[i], as[i]);
}
"""


def test_mul24_mad24(run, rng):
    # 24-bit operands: the functions are only defined for values that fit 24 bits
    a, b, c = (ints(rng, N, -(1 << 23), 1 << 23) for _ in range(3))
    out = run(MUL24_SRC, {"as": a, "bs": b, "cs": c, "out": garbage(rng, N, np.int32)}, ["out"],
              grid=N, threads=64)["out"]
    want = [s32(int(x) * int(y)) ^ s32(int(y) * int(z) + int(x)) for x, y, z in zip(a, b, c)]
    exact(out, np.array(want, dtype=np.int32), "mul24/mad24")


ARITH_SRC = HEADER + """
kernel void k(device const int* as [[buffer(0)]], device const int* bs [[buffer(1)]],
              device int* q [[buffer(2)]], device int* r [[buffer(3)]], device uint* uq [[buffer(4)]],
              device int* sh [[buffer(5)]], device uint* ush [[buffer(6)]], device int* wrap [[buffer(7)]],
              uint i [[thread_position_in_grid]]) {
    int a = as[i], b = bs[i];
    q[i] = a / b;
    r[i] = a % b;
    uq[i] = uint(a) / uint(b) + uint(a) % uint(b);
    sh[i] = (a >> (b & 31)) ^ int(uint(a) << (b & 7));   // >> of a negative int is arithmetic
    ush[i] = uint(a) >> (uint(b) & 31u);
    wrap[i] = int(uint(a) * uint(b) + uint(a) - uint(b));   // unsigned arithmetic wraps
}
"""


def test_integer_arithmetic(run, rng):
    a = ints(rng, N, -(1 << 31), 1 << 31, dtype=np.int64)
    b = ints(rng, N, -(1 << 31), 1 << 31, dtype=np.int64)
    b[::3] = ints(rng, len(b[::3]), -100, 100, dtype=np.int64)  # small divisors too
    a[(a == -(1 << 31)) & (b == -1)] = 7                      # INT_MIN / -1 overflows
    names = ["q", "r", "uq", "sh", "ush", "wrap"]
    ins = {"as": a.astype(np.int32), "bs": b.astype(np.int32)}
    for n in names:
        ins[n] = garbage(rng, N, np.uint32 if n.startswith("u") else np.int32)
    res = run(ARITH_SRC, ins, names, grid=N, threads=64)
    q, r, uq, sh, ush, wrap = [], [], [], [], [], []
    for x, y in zip(map(int, a), map(int, b)):
        t = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)   # C truncates toward zero
        q.append(t)
        r.append(x - t * y)
        ux, uy = x & (U32 - 1), y & (U32 - 1)
        uq.append((ux // uy + ux % uy) & (U32 - 1))
        sh.append(s32((x >> (y & 31)) ^ ((x << (y & 7)) & (U32 - 1))))
        ush.append(ux >> (uy & 31))
        wrap.append(s32(x * y + x - y))
    exact(res["q"], np.array(q, np.int32), "int /")
    exact(res["r"], np.array(r, np.int32), "int %")
    exact(res["uq"], np.array(uq, np.uint32), "uint / and %")
    exact(res["sh"], np.array(sh, np.int32), "shifts")
    exact(res["ush"], np.array(ush, np.uint32), "uint >>")
    exact(res["wrap"], np.array(wrap, np.int32), "wrapping * + -")


SMALL_SRC = HEADER + """
kernel void k(device const uchar* a [[buffer(0)]], device const short* b [[buffer(1)]],
              device ushort* out16 [[buffer(2)]], device char* out8 [[buffer(3)]],
              device long* out64 [[buffer(4)]], uint i [[thread_position_in_grid]]) {
    uchar x = a[i];
    short y = b[i];
    out16[i] = ushort(x * y + popcount(x));      // int arithmetic, then truncated
    out8[i] = char(y) + char(clz(x));            // char wraps
    out64[i] = long(y) * long(100000) * long(x) + (long(1) << 40);
}
"""


def test_small_and_wide_integers(run, rng):
    a = ints(rng, N, 1, 256, dtype=np.uint8)
    b = ints(rng, N, -(1 << 15), 1 << 15, dtype=np.int16)
    r = run(SMALL_SRC, {"a": a, "b": b, "out16": garbage(rng, N, np.uint16),
                        "out8": garbage(rng, N, np.int8), "out64": garbage(rng, N, np.int64)},
            ["out16", "out8", "out64"], grid=N, threads=64)
    o16, o8, o64 = [], [], []
    for x, y in zip(map(int, a), map(int, b)):
        o16.append((x * y + bin(x).count("1")) & 0xFFFF)
        v = ((y & 0xFF) + (8 - x.bit_length())) & 0xFF
        o8.append(v - 256 if v >= 128 else v)
        o64.append(y * 100000 * x + (1 << 40))
    exact(r["out16"], np.array(o16, np.uint16), "ushort")
    exact(r["out8"], np.array(o8, np.int8), "char")
    exact(r["out64"], np.array(o64, np.int64), "long")


CONVERT_SRC = HEADER + """
kernel void k(device const float* a [[buffer(0)]], device int* toint [[buffer(1)]],
              device uint* touint [[buffer(2)]], device float* back [[buffer(3)]],
              device float* bits [[buffer(4)]], uint i [[thread_position_in_grid]]) {
    float x = a[i];
    toint[i] = int(x);                  // truncation toward zero
    touint[i] = uint(fabs(x));
    back[i] = float(int(x * 3.0f)) / 3.0f;
    bits[i] = as_type<float>(as_type<uint>(x) ^ 0x80000000u);   // flips the sign
}
"""


def test_conversions(run, rng):
    a = (rng.uniform(-1e6, 1e6, N) * rng.choice([1e-4, 1, 1e-2], N)).astype(np.float32)
    a[a == 0] = 1.5
    names = ["toint", "touint", "back", "bits"]
    ins = {"a": a, "toint": garbage(rng, N, np.int32), "touint": garbage(rng, N, np.uint32),
           "back": garbage(rng, N), "bits": garbage(rng, N)}
    r = run(CONVERT_SRC, ins, names, grid=N, threads=64)
    x = a.astype(np.float64)
    exact(r["toint"], np.trunc(x).astype(np.int32), "float -> int")
    exact(r["touint"], np.trunc(np.abs(x)).astype(np.uint32), "float -> uint")
    t = np.trunc((a * np.float32(3)).astype(np.float64)).astype(np.float32) / np.float32(3)
    exact(r["back"], t, "int -> float")
    exact(r["bits"], -a, "as_type")


INT_VECTOR_SRC = HEADER + """
kernel void k(device const int4* a [[buffer(0)]], device const uchar4* b [[buffer(1)]],
              device int4* out [[buffer(2)]], device ushort2* small [[buffer(3)]],
              device ulong2* wide [[buffer(4)]], uint i [[thread_position_in_grid]]) {
    int4 x = a[i];
    int4 y = int4(b[i]);
    out[i] = (x * y + (x >> 3)) ^ int4(i) - clamp(x, int4(-5), int4(5)) + abs(y.wzyx - 100);
    small[i] = ushort2(b[i].xy) * ushort2(300, 7) + ushort2(popcount(b[i].zw));
    wide[i] = ulong2(uint2(x.xy)) * ulong2(y.zw) + (ulong2(1) << ulong2(40, 63));
}
"""


def test_integer_vectors(run, rng):
    n = 500
    a = ints(rng, (n, 4), -(1 << 20), 1 << 20)
    b = ints(rng, (n, 4), 1, 256, dtype=np.uint8)
    r = run(INT_VECTOR_SRC, {"a": a, "b": b, "out": garbage(rng, (n, 4), np.int32),
                             "small": garbage(rng, (n, 2), np.uint16), "wide": garbage(rng, (n, 2), np.uint64)},
            ["out", "small", "wide"], grid=n, threads=32)
    x = a.astype(np.int64)
    y = b.astype(np.int64)
    idx = np.arange(n)[:, None]
    # C precedence: ^ binds looser than + and -
    want = (x * y + (x >> 3)) ^ (idx - np.clip(x, -5, 5) + np.abs(y[:, ::-1] - 100))
    exact(r["out"], (want & 0xFFFFFFFF).astype(np.uint32).view(np.int32), "int4 arithmetic")
    pc = np.vectorize(lambda v: bin(int(v)).count("1"))(y[:, 2:])
    exact(r["small"], ((y[:, :2] * np.array([300, 7]) + pc) & 0xFFFF).astype(np.uint16), "ushort2 from uchar4")
    ux = (x[:, :2] & 0xFFFFFFFF).astype(object)
    wv = [[(int(ux[k, j]) * int(y[k, 2 + j]) + (1 << (40 if j == 0 else 63))) & ((1 << 64) - 1) for j in range(2)]
          for k in range(n)]
    exact(r["wide"], np.array(wv, dtype=np.uint64), "ulong2 arithmetic")
