"""Types: vectors and swizzles, half and bfloat (computed in float, rounded to the storage
type on each store and conversion), structs in buffers with MSL layout (float3 takes 16
bytes), packed vectors, constant buffers and program-scope constants, and the control flow
and helper functions that kernels are written with."""
import numpy as np
import pytest

from semharness import close, exact, floats, garbage, ints

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"
N = 512


def f16(x):
    return np.asarray(x, dtype=np.float32).astype(np.float16)


def bf16_bits(x):
    """float32 -> bfloat bits, round to nearest even (NaN kept quiet)."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    r[nan] = ((b[nan] >> 16) | 0x40).astype(np.uint16)
    return r


def bf16_value(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


SWIZZLE_SRC = HEADER + """
kernel void k(device const float4* a [[buffer(0)]], device const float4* b [[buffer(1)]],
              device float4* out [[buffer(2)]], device int4* iout [[buffer(3)]],
              uint i [[thread_position_in_grid]]) {
    float4 x = a[i], y = b[i];
    float4 v = x.wzyx + y.xxyy * 2.0f;
    v.xz = y.yw - x.zz;                 // a written swizzle
    v.w += x.r * y.g;                   // rgba names
    float2 p = float2(v.y, x.w);
    float3 q = float3(p, y.z) * float3(1.0f, -1.0f, 0.5f);
    v.yzw += q.zyx;
    out[i] = float4(v.xy, q.x + v[int(i % 4)], dot(q, float3(1.0f)));
    int4 m = int4(x > y) + int4(3, -2, 7, 1) * int4(x.yzwx < 0.0f);
    iout[i] = m.wzxy + (m.x == m.y ? int4(10) : int4(-10));
}
"""


def test_vectors_and_swizzles(run, rng):
    a = floats(rng, (N, 4), -5, 5)
    b = floats(rng, (N, 4), -5, 5)
    r = run(SWIZZLE_SRC, {"a": a, "b": b, "out": garbage(rng, (N, 4)), "iout": garbage(rng, (N, 4), np.int32)},
            ["out", "iout"], grid=N, threads=64)
    x, y = a.astype(np.float64), b.astype(np.float64)
    v = x[:, ::-1] + y[:, [0, 0, 1, 1]] * 2
    v[:, 0] = y[:, 1] - x[:, 2]
    v[:, 2] = y[:, 3] - x[:, 2]
    v[:, 3] += x[:, 0] * y[:, 1]
    q = np.stack([v[:, 1], -x[:, 3], y[:, 2] * 0.5], axis=1)
    v[:, 1:] += q[:, ::-1]
    sel = v[np.arange(N), np.arange(N) % 4]
    want = np.stack([v[:, 0], v[:, 1], q[:, 0] + sel, q.sum(axis=1)], axis=1)
    close(r["out"], want, rtol=1e-5, atol=1e-5, what="float vector swizzles")
    m = (x > y).astype(np.int64) + np.array([3, -2, 7, 1]) * (x[:, [1, 2, 3, 0]] < 0)
    wi = m[:, [3, 2, 0, 1]] + np.where(m[:, [0]] == m[:, [1]], 10, -10)
    exact(r["iout"], wi.astype(np.int32), "bool vectors to int, vector select")


HALF_SRC = HEADER + """
kernel void k(device const half* a [[buffer(0)]], device const half* b [[buffer(1)]],
              device half* prod [[buffer(2)]], device half* chain [[buffer(3)]],
              device float* widened [[buffer(4)]], device half4* vec [[buffer(5)]],
              uint i [[thread_position_in_grid]]) {
    half x = a[i], y = b[i];
    prod[i] = x * y;                       // rounded to half when stored
    half t = x + y;                        // rounded here
    half u = t * x;                        // and here
    chain[i] = u - y;
    widened[i] = float(x) / float(y);      // float arithmetic, no rounding to half
    half4 h = half4(x, y, t, u);
    vec[i] = h * half(0.5h) + half4(1.0h);
}
"""


def test_half_rounds_on_store(run, rng):
    a = f16(floats(rng, N, -30, 30))
    b = f16(floats(rng, N, -30, 30))
    outs = ["prod", "chain", "widened", "vec"]
    r = run(HALF_SRC, {"a": a, "b": b, "prod": garbage(rng, N, np.float16), "chain": garbage(rng, N, np.float16),
                       "widened": garbage(rng, N), "vec": garbage(rng, (N, 4), np.float16)}, outs, grid=N, threads=64)
    x, y = a.astype(np.float32), b.astype(np.float32)
    exact(r["prod"], f16(x * y), "half product")
    t = f16(x + y).astype(np.float32)
    u = f16(t * x).astype(np.float32)
    exact(r["chain"], f16(u - y), "half chain with a rounding at each store")
    close(r["widened"], x.astype(np.float64) / y, rtol=1e-6, atol=0, what="half to float")
    h = np.stack([x, y, t, u], axis=1)
    exact(r["vec"], f16(h * np.float32(0.5) + np.float32(1)), "half4 arithmetic")


BFLOAT_SRC = HEADER + """
kernel void k(device const bfloat* a [[buffer(0)]], device const float* f [[buffer(1)]],
              device bfloat* sum [[buffer(2)]], device bfloat* narrowed [[buffer(3)]],
              device float* widened [[buffer(4)]], uint i [[thread_position_in_grid]]) {
    bfloat x = a[i];
    sum[i] = x + bfloat(f[i]);              // bfloat(f) rounds; the sum rounds on store
    narrowed[i] = bfloat(f[i] * 3.0f);
    widened[i] = float(x) * 0.5f;
}
"""


def test_bfloat_rounds_on_store_and_conversion(run, rng):
    fa = floats(rng, N, -100, 100)
    a = bf16_bits(fa)
    f = floats(rng, N, -100, 100)
    f[:8] = np.array([1.00390625, 1.01171875, -3.0078125, 2.0 ** -100, 65504.5, 1e38, 3.0e-3, 7.0], np.float32)
    r = run(BFLOAT_SRC, {"a": a, "f": f, "sum": garbage(rng, N, np.uint16), "narrowed": garbage(rng, N, np.uint16),
                         "widened": garbage(rng, N)}, ["sum", "narrowed", "widened"], grid=N, threads=64)
    x = bf16_value(a)
    fb = bf16_value(bf16_bits(f))
    exact(r["sum"], bf16_bits(x + fb), "bfloat sum")
    exact(r["narrowed"], bf16_bits(f * np.float32(3)), "float to bfloat (round to nearest even)")
    exact(r["widened"], x * np.float32(0.5), "bfloat to float")


STRUCT_SRC = HEADER + """
struct Particle {
    float3 pos;      // 16 bytes: float3 is padded to float4
    float mass;
    int id;
    float2 vel;
    packed_float3 tag;   // 12 bytes, no padding
    char flag;
};

kernel void k(device Particle* ps [[buffer(0)]], device float* out [[buffer(1)]],
              constant float& dt [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    Particle p = ps[i];
    p.pos += float3(p.vel, float(p.id)) * dt;
    p.mass *= 2.0f;
    p.id = p.id * 3 + int(p.flag);
    p.tag = packed_float3(p.tag.z, p.tag.x, p.tag.y);
    ps[i] = p;
    out[i] = length(p.pos) + p.tag[1];
}
"""

# MSL layout of Particle: pos @0 (16), mass @16, id @20, vel @24 (align 8), tag @32 (12),
# flag @44, size 48 (aligned to 16)
PARTICLE = np.dtype({"names": ["pos", "pad", "mass", "id", "vel", "tag", "flag"],
                     "formats": [("<f4", 3), "<f4", "<f4", "<i4", ("<f4", 2), ("<f4", 3), "i1"],
                     "offsets": [0, 12, 16, 20, 24, 32, 44], "itemsize": 48})


def test_structs_in_buffers_float3_padding(run, rng, tmp_path):
    n = 300
    p = np.zeros(n, dtype=PARTICLE)
    p["pos"] = floats(rng, (n, 3), -5, 5)
    p["pad"] = 12345.0                      # a float3's fourth lane: any value may come back
    p["mass"] = floats(rng, n, 1, 3)
    p["id"] = ints(rng, n, -1000, 1000)
    p["vel"] = floats(rng, (n, 2), -1, 1)
    p["tag"] = floats(rng, (n, 3), -9, 9)
    p["flag"] = ints(rng, n, -100, 100, dtype=np.int8)
    dt = 0.125
    raw = tmp_path / "ps.bin"
    raw.write_bytes(p.tobytes())
    outf = tmp_path / "ps_out.bin"
    r = run(STRUCT_SRC, {"ps": f"@{raw}", "out": garbage(rng, n), "dt": str(dt)}, ["out"], grid=n, threads=32,
            extra=["-o", f"ps={outf}"])
    q = np.frombuffer(outf.read_bytes(), dtype=PARTICLE)
    assert q.shape == (n,)
    pos = p["pos"].astype(np.float64) + np.concatenate([p["vel"], p["id"][:, None]], axis=1) * dt
    close(q["pos"], pos, rtol=1e-6, atol=1e-6, what="struct float3 field")
    # the padding lane of a float3 holds no defined value once the vector is written
    exact(q["mass"], p["mass"] * np.float32(2), "struct float field")
    exact(q["id"], (p["id"].astype(np.int64) * 3 + p["flag"]).astype(np.int32), "struct int field")
    exact(q["vel"], p["vel"], "struct float2 field")
    exact(q["tag"], p["tag"][:, [2, 0, 1]], "packed_float3 field")
    exact(q["flag"], p["flag"], "struct char field")
    close(r["out"], np.linalg.norm(pos, axis=1) + p["tag"][:, 0], rtol=1e-5, atol=1e-5, what="length(pos) + tag[1]")


FLOAT3_BUFFER_SRC = HEADER + """
kernel void k(device const float3* a [[buffer(0)]], device const packed_float3* b [[buffer(1)]],
              device float3* out [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    float3 pb = float3(b[i]);
    out[i] = cross(a[i], pb) + a[i].zxy;
}
"""


def test_float3_and_packed_float3_buffers(run, rng):
    n = 200
    a = floats(rng, (n, 4), -3, 3)        # float3 elements take 16 bytes
    b = floats(rng, (n, 3), -3, 3)        # packed_float3 takes 12
    out = run(FLOAT3_BUFFER_SRC, {"a": a, "b": b, "out": garbage(rng, (n, 4))}, ["out"], grid=n, threads=32)["out"]
    x = a[:, :3].astype(np.float64)
    want = np.cross(x, b.astype(np.float64)) + x[:, [2, 0, 1]]
    close(out[:, :3], want, rtol=1e-5, atol=1e-5, what="float3 / packed_float3 buffers")


CONSTANTS_SRC = HEADER + """
constant float weights[5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};
constant int OFFSET = 2;

struct Params { float scale; uint count; float2 shift; };

float weigh(thread const float* w, device const float* x, int at, int n) {
    float s = 0.0f;
    for (int k = 0; k < 5; k++) {
        int j = clamp(at + k - OFFSET, 0, n - 1);
        s += w[k] * x[j];
    }
    return s;
}

void bump(thread float& v, float by) { v += by; }

kernel void k(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],
              constant Params& prm [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    if (i >= prm.count) return;
    float w[5];
    for (int k = 0; k < 5; k++) w[k] = weights[k];
    float v = weigh(w, x, int(i), int(prm.count)) * prm.scale;
    bump(v, prm.shift.x);
    bump(v, prm.shift.y * 2.0f);
    y[i] = v;
}
"""


def test_constants_helpers_references(run, rng, tmp_path):
    n = 700
    x = floats(rng, n, -2, 2)
    scale, sx, sy = 1.5, 0.25, -0.75
    params = tmp_path / "prm.bin"
    params.write_bytes(np.array([scale], np.float32).tobytes() + np.array([n - 5], np.uint32).tobytes()
                       + np.array([sx, sy], np.float32).tobytes())
    y0 = garbage(rng, n)
    out = run(CONSTANTS_SRC, {"x": x, "y": y0, "prm": f"@{params}"}, ["y"], grid=n, threads=64)["y"]
    w = np.array([0.1, 0.2, 0.4, 0.2, 0.1], np.float32).astype(np.float64)
    m = n - 5
    idx = np.clip(np.arange(m)[:, None] + np.arange(5)[None, :] - 2, 0, m - 1)
    want = (x.astype(np.float64)[idx] * w).sum(axis=1) * scale + sx + 2 * sy
    close(out[:m], want, rtol=1e-5, atol=1e-5, what="constants, helpers, references")
    exact(out[m:], y0[m:], "threads past count returned before writing")


CONTROL_SRC = HEADER + """
int collatz_steps(uint v) {
    int steps = 0;
    while (v != 1u) {
        v = (v % 2u == 0u) ? v / 2u : 3u * v + 1u;
        steps++;
        if (steps > 500) return -1;
    }
    return steps;
}

kernel void k(device const uint* x [[buffer(0)]], device int* out [[buffer(1)]],
              device const int* arr [[buffer(2)]], constant int& len [[buffer(3)]],
              uint i [[thread_position_in_grid]]) {
    int r = collatz_steps(x[i]);
    int acc = 0;
    int k = 0;
    do {
        k++;
        if (k % 3 == 0) continue;
        if (k > 10) break;
        acc += k;
    } while (k < 20);
    switch (x[i] % 4u) {
    case 0: acc += 100; break;
    case 1: acc += 200;       // falls through
    case 2: acc += 300; break;
    default: acc -= 1;
    }
    int j = int(x[i] % 64u);
    bool safe = j < len && arr[j] > 0;        // && must not read arr[j] when j >= len
    out[i] = r * 10000 + acc * 10 + (safe ? 1 : 0);
}
"""


def test_control_flow(run, rng):
    n = 600
    x = ints(rng, n, 1, 5000, dtype=np.uint32)
    length = 40
    arr = ints(rng, length, -50, 50)
    out = run(CONTROL_SRC, {"x": x, "out": garbage(rng, n, np.int32), "arr": arr, "len": str(length)}, ["out"],
              grid=n, threads=64)["out"]

    def collatz(v):
        s = 0
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            s += 1
            if s > 500:
                return -1
        return s

    loop_acc = sum(k for k in range(1, 11) if k % 3 != 0)
    want = []
    for v in map(int, x):
        acc = loop_acc + {0: 100, 1: 500, 2: 300, 3: -1}[v % 4]
        j = v % 64
        safe = j < length and arr[j] > 0
        want.append(collatz(v) * 10000 + acc * 10 + (1 if safe else 0))
    exact(out, np.array(want, np.int32), "loops, switch, short-circuit, early return in a helper")


MATRIX_SRC = HEADER + """
kernel void k(device const float* a [[buffer(0)]], device const float* b [[buffer(1)]],
              device const float* c [[buffer(2)]], device float* d [[buffer(3)]]) {
    simdgroup_float8x8 ma, mb, mc, md;
    simdgroup_load(ma, a, 8);
    simdgroup_load(mb, b, 8);
    simdgroup_load(mc, c, 8);
    simdgroup_multiply_accumulate(md, ma, mb, mc);
    simdgroup_store(md, d, 8);
}
"""


def test_simdgroup_matrix_multiply_accumulate(run, rng):
    a, b, c = (floats(rng, (8, 8), -2, 2) for _ in range(3))
    out = run(MATRIX_SRC, {"a": a, "b": b, "c": c, "d": garbage(rng, (8, 8))}, ["d"], threadgroups=1, threads=32)["d"]
    close(out, a.astype(np.float64) @ b.astype(np.float64) + c, rtol=1e-5, atol=1e-5, what="simdgroup_multiply_accumulate")


MATRIX_FILL_SRC = HEADER + """
kernel void k(device const float* a [[buffer(0)]], device const float* b [[buffer(1)]],
              device float* prod [[buffer(2)]], device float* shifted [[buffer(3)]],
              threadgroup float* stage [[threadgroup(0)]], uint lid [[thread_index_in_threadgroup]]) {
    simdgroup_float8x8 ma, mb, mp, ms;
    simdgroup_float8x8 fill = make_filled_simdgroup_matrix<float, 8, 8>(1.5f);
    simdgroup_load(ma, a, 16, ulong2(8, 0));          // the right half of a 16-wide row-major a
    for (uint i = lid; i < 64; i += 32) stage[i] = b[i];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    simdgroup_load(mb, stage, 8, ulong2(0, 0), true); // transposed, from threadgroup memory
    simdgroup_multiply(mp, ma, mb);
    simdgroup_multiply_accumulate(ms, ma, fill, mp);
    simdgroup_store(mp, prod, 8);
    simdgroup_store(ms, shifted, 8);
}
"""


def test_simdgroup_matrix_fill_multiply_origin_transpose(run, rng):
    a = floats(rng, (8, 16), -2, 2)
    b = floats(rng, (8, 8), -2, 2)
    r = run(MATRIX_FILL_SRC, {"a": a, "b": b, "prod": garbage(rng, (8, 8)), "shifted": garbage(rng, (8, 8))},
            ["prod", "shifted"], threadgroups=1, threads=32, tgmem={0: 256})
    A = a[:, 8:].astype(np.float64)
    B = b.astype(np.float64).T
    P = A @ B
    close(r["prod"], P, rtol=1e-5, atol=1e-5, what="simdgroup_multiply (origin, transposed load)")
    close(r["shifted"], A @ np.full((8, 8), 1.5) + P, rtol=1e-5, atol=1e-5,
          what="make_filled_simdgroup_matrix + multiply_accumulate")
