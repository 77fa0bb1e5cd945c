"""The fold pass (src/pass/fold.c) computes at compile time what the backends compute at run
time. Each test writes random operands twice into one kernel: as literals held in locals
(which the pass propagates and folds) and as values read from a buffer (which it cannot
fold). Both halves must agree with each other and, where MSL defines the result, with
exact Python integers. The operands are drawn afresh each run, edge values among them.
Also: code that constants rule out (zero-trip loops, constant ifs, barriers in them) is
removed without changing what the kernel computes."""
import numpy as np
import pytest

from semharness import exact, floats, garbage

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"

# MSL name, NumPy dtype, bits, signed, bits of the type arithmetic happens in (C++ promotion)
TYPES = [
    ("char", np.int8, 8, True, 32),
    ("uchar", np.uint8, 8, False, 32),
    ("short", np.int16, 16, True, 32),
    ("ushort", np.uint16, 16, False, 32),
    ("int", np.int32, 32, True, 32),
    ("uint", np.uint32, 32, False, 32),
    ("long", np.int64, 64, True, 64),
    ("ulong", np.uint64, 64, False, 64),
]

BINARY = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">=", "==", "!="]
UNARY = ["-", "~", "!"]
PAIRS = 8


def wrap(v, bits, signed):
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def literal(v, name, bits, signed):
    """v as an MSL expression of type `name` (no literal of the most negative value exists)"""
    suffix = {"long": "l", "ulong": "ul", "uint": "u"}.get(name, "")
    if signed and v == -(1 << (bits - 1)):
        return f"{name}(-{(1 << (bits - 1)) - 1}{suffix} - 1{suffix})"
    return f"{name}({v}{suffix})"


def operand_pairs(rng, bits, signed, work_bits):
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    edges = [(hi, 1), (lo, -1 if signed else 1), (lo, hi), (0, lo), (hi, hi)]
    draw_type = np.uint64 if bits == 64 and not signed else np.int64
    pairs = [(int(rng.integers(lo, hi, endpoint=True, dtype=draw_type)),
              int(rng.integers(lo, hi, endpoint=True, dtype=draw_type)))
             for _ in range(PAIRS - len(edges))] + edges
    # shift counts: in range of the type the shift happens in, one out of range, one of -1
    shifts = [int(rng.integers(0, work_bits)) for _ in range(PAIRS - 2)] + [work_bits + 3, -1 if signed else work_bits]
    # no divisor of zero: checked mode (tests/check/test_no_false_positives.py reruns this
    # suite checked) reports it; tests/pass/cases/arith.metal shows it is left alone
    divisors = [b if b != 0 else 1 for _, b in pairs]
    return pairs, shifts, divisors


def expected(op, a, b, bits, signed, work_bits):
    """the MSL result, or None where MSL leaves it undefined (then only the halves agree)"""
    if op in ("/", "%"):
        if b == 0 or (work_bits == bits and signed and a == -(1 << (bits - 1)) and b == -1):
            return None
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return wrap(q if op == "/" else a - b * q, bits, signed)
    if op in ("<<", ">>"):
        if b < 0 or b >= work_bits:
            return None
        if op == "<<":
            if signed and a < 0:
                return wrap((a % (1 << work_bits)) << b, bits, signed)
            return wrap(a << b, bits, signed)
        return wrap(a >> b, bits, signed)
    value = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b,
             "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]
    return wrap(int(value), bits, signed)


def differential_source(name, pairs, shifts, divisors, bits, signed):
    """kernel: out[i] from literals in locals (one statement a case), ref[i] from the
    buffer `in` (one loop an operator), cases grouped by operator"""
    cases = []
    for op in BINARY + UNARY:
        for (a, b), sh, d in zip(pairs, shifts, divisors):
            cases.append((op, a, None if op in UNARY else sh if op in ("<<", ">>") else d if op in ("/", "%") else b))
    folded, runtime, inputs = [], [], []
    for n, (op, a, b) in enumerate(cases):
        la, lb = literal(a, name, bits, signed), literal(b if b is not None else 0, name, bits, signed)
        inputs += [a, b if b is not None else 0]
        expr = f"{op}x" if b is None else f"x {op} y"
        folded.append(f"    {{ {name} x = {la}; {name} y = {lb}; out[{n}] = {name}({expr}); }}")
    for k, op in enumerate(BINARY + UNARY):
        expr = f"{op}x" if op in UNARY else f"x {op} y"
        base = k * len(pairs)
        runtime.append(f"    for (uint i = {base}; i < {base + len(pairs)}; i++) {{\n"
                       f"        {name} x = in[2 * i], y = in[2 * i + 1];\n"
                       f"        ref[i] = {name}({expr});\n    }}")
    src = HEADER + f"kernel void k(device const {name}* in [[buffer(0)]], device {name}* out [[buffer(1)]],\n" \
        f"              device {name}* ref [[buffer(2)]]) {{\n" + "\n".join(folded + runtime) + "\n}\n"
    return src, cases, inputs


@pytest.mark.parametrize("name,dtype,bits,signed,work_bits", TYPES, ids=[t[0] for t in TYPES])
def test_integer_folding_matches_run_time(name, dtype, bits, signed, work_bits, run, rng):
    pairs, shifts, divisors = operand_pairs(rng, bits, signed, work_bits)
    src, cases, inputs = differential_source(name, pairs, shifts, divisors, bits, signed)
    n = len(cases)
    res = run(src, {"in": np.array([wrap(v, bits, signed) for v in inputs], dtype=dtype),
                    "out": garbage(rng, n, dtype), "ref": garbage(rng, n, dtype)},
              ["out", "ref"], grid=1, threads=1)
    exact(res["out"], res["ref"], f"{name}: folded against run time")
    for i, (op, a, b) in enumerate(cases):
        if b is None:
            want = {"-": wrap(-a, bits, signed), "~": wrap(~a, bits, signed), "!": int(a == 0)}[op]
        else:
            want = expected(op, a, b, bits, signed, work_bits)
        if want is not None:
            assert int(res["out"][i]) == want, f"{name}: {a} {op} {b} gave {res['out'][i]}, expected {want}"


CONVERT_SRC = HEADER + """
kernel void k(device const float* fin [[buffer(0)]], device const int* iin [[buffer(1)]],
              device int* out [[buffer(2)]], device int* ref [[buffer(3)]],
              device float* fout [[buffer(4)]], device float* fref [[buffer(5)]]) {
    { float x = %(f)sf; int i = %(i)s; out[0] = int(x); out[1] = int(x < 0.5f); out[2] = int(bool(x));
      out[3] = int(short(i)); out[4] = int(uchar(i)); out[5] = int(uint(i) >> 3u);
      fout[0] = float(i & 0xffff); fout[1] = -x; fout[2] = float(half(0.5h)); }
    { float x = fin[0]; int i = iin[0]; ref[0] = int(x); ref[1] = int(x < 0.5f); ref[2] = int(bool(x));
      ref[3] = int(short(i)); ref[4] = int(uchar(i)); ref[5] = int(uint(i) >> 3u);
      fref[0] = float(i & 0xffff); fref[1] = -x; fref[2] = float(half(0.5h)); }
}
"""


def test_conversions_match_run_time(run, rng):
    for _ in range(3):
        f = float(floats(rng, 1, -1000.0, 1000.0)[0])
        i = int(rng.integers(-(1 << 31), (1 << 31) - 1))
        src = CONVERT_SRC % {"f": repr(np.float32(f).item()), "i": literal(i, "int", 32, True)}
        res = run(src, {"fin": np.array([f], np.float32), "iin": np.array([i], np.int32),
                        "out": garbage(rng, 6, np.int32), "ref": garbage(rng, 6, np.int32),
                        "fout": garbage(rng, 3), "fref": garbage(rng, 3)},
                  ["out", "ref", "fout", "fref"], grid=1, threads=1)
        exact(res["out"], res["ref"], "conversions: folded against run time")
        exact(res["fout"], res["fref"], "float results: folded against run time")
        f32 = float(np.float32(f))
        want = [int(f32), int(f32 < 0.5), int(f32 != 0), wrap(i, 16, True), i & 0xff, (i & 0xffffffff) >> 3]
        exact(res["out"], np.array(want, np.int32), "conversions")
        exact(res["fout"], np.array([i & 0xffff, -f32, 0.5], np.float32), "float results")


STAGES_SRC = HEADER + """
template <int STAGES, bool INVERT>
static void stages(threadgroup float* buf, uint lid, uint n) {
    for (int s = 0; s < STAGES; s++) {
        float mine = buf[lid], other = buf[(lid + 1 + s) % n];
        threadgroup_barrier(mem_flags::mem_threadgroup);
        buf[lid] = INVERT ? mine - other : mine + other * 0.5f;
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
}

kernel void k(device float* data [[buffer(0)]], uint lid [[thread_position_in_threadgroup]],
              uint n [[threads_per_threadgroup]], uint gid [[thread_position_in_grid]]) {
    threadgroup float buf[64];
    buf[lid] = data[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    stages<0, false>(buf, lid, n);
    stages<3, false>(buf, lid, n);
    stages<0, true>(buf, lid, n);
    stages<2, true>(buf, lid, n);
    data[gid] = buf[lid];
}
"""


def test_constant_trip_counts_and_branches(run, rng):
    """the zero-trip stages go (barriers and all), the others run as written"""
    n = 64
    x = floats(rng, 2 * n, -2.0, 2.0)
    got = run(STAGES_SRC, {"data": x.copy()}, ["data"], grid=2 * n, threads=n)["data"]
    want = []
    for g in range(2):
        buf = x[g * n:(g + 1) * n].astype(np.float64)
        for s in range(3):
            buf = buf + np.roll(buf, -(1 + s)) * 0.5
        for s in range(2):
            buf = buf - np.roll(buf, -(1 + s))
        want.append(buf)
    from semharness import close
    close(got, np.concatenate(want), rtol=1e-4, atol=1e-4, what="constant stages")
