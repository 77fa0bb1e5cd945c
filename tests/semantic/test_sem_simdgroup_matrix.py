"""simdgroup_matrix: thread_elements() with Apple's lane layout, and the matrix operations
around it as real kernels use them (tinygrad's tensor-core helper, MLX's steel fragments,
arrays of matrices, matrices in structs and helper functions, half/bfloat/float operands).

Apple's layout is taken from the "Storage format among threads" table in
metal-flash-attention's simdgroup_matrix_internals.hpp (written out below as it is printed
there, not computed from a formula): each lane holds two neighbouring elements of one row.
Every reference is NumPy in float64 from random inputs."""
import pathlib

import numpy as np
import pytest

from semharness import close, exact, floats, garbage

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"

# The table, quad by quad: [rc rc] is the pair a lane holds, lanes 4q .. 4q+3 left to right.
APPLE_TABLE = """
[00 01] [02 03] [10 11] [12 13]
[20 21] [22 23] [30 31] [32 33]
[04 05] [06 07] [14 15] [16 17]
[24 25] [26 27] [34 35] [36 37]
[40 41] [42 43] [50 51] [52 53]
[60 61] [62 63] [70 71] [72 73]
[44 45] [46 47] [54 55] [56 57]
[64 65] [66 67] [74 75] [76 77]
"""


def apple_lanes():
    """lane -> ((row, col) of element 0, (row, col) of element 1)"""
    pairs = []
    for line in APPLE_TABLE.split("\n"):
        for pair in line.replace("[", " ").replace("]", " ").split():
            pairs.append((int(pair[0]), int(pair[1])))
    lanes = [(pairs[2 * i], pairs[2 * i + 1]) for i in range(32)]
    covered = sorted(rc for lane in lanes for rc in lane)
    assert covered == [(r, c) for r in range(8) for c in range(8)]
    return lanes


LANES = apple_lanes()


def per_lane(m):
    """the (32, 2) array of what each lane holds of the 8x8 matrix m"""
    return np.array([[m[r0, c0], m[r1, c1]] for (r0, c0), (r1, c1) in LANES])


def from_lanes(v):
    """the 8x8 matrix whose lanes hold v (32, 2)"""
    m = np.zeros((8, 8), v.dtype)
    for lane, ((r0, c0), (r1, c1)) in enumerate(LANES):
        m[r0, c0], m[r1, c1] = v[lane, 0], v[lane, 1]
    return m


def bf16_bits(x):
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


# name, MSL element type, numpy storage dtype, values -> stored, stored -> float64
TYPES = {
    "float": ("float", np.float32, lambda x: x.astype(np.float32), lambda s: s.astype(np.float64)),
    "half": ("half", np.float16, lambda x: x.astype(np.float16), lambda s: s.astype(np.float64)),
    "bfloat": ("bfloat", np.uint16, bf16_bits, lambda s: bf16_value(s).astype(np.float64)),
}


def matrix_values(rng, shape):
    """random values exact in every element type (8 significant bits, never zero)"""
    return (rng.integers(1, 256, shape) * rng.choice([-1, 1], shape) / 64.0).astype(np.float32)


ELEMENTS_SRC = HEADER + """
typedef ELEMENT_TYPE T;
kernel void k(device const T* m_in [[buffer(0)]], device const T* lanes_in [[buffer(1)]],
              device T* read_out [[buffer(2)]], device T* write_out [[buffer(3)]],
              device T* vector_out [[buffer(4)]], uint lane [[thread_index_in_simdgroup]]) {
    simdgroup_matrix<T, 8, 8> m;
    simdgroup_load(m, m_in, 8);
    vec<T, 2> mine = m.thread_elements();              // read, the whole pair
    read_out[lane * 2] = mine.x;
    read_out[lane * 2 + 1] = m.thread_elements()[1];   // read, one element
    simdgroup_matrix<T, 8, 8> w = make_filled_simdgroup_matrix<T, 8, 8>(T(0));
    w.thread_elements()[0] = lanes_in[lane * 2];       // write, element by element
    w.thread_elements()[1] = lanes_in[lane * 2 + 1];
    simdgroup_store(w, write_out, 8);
    simdgroup_matrix<T, 8, 8> v;
    v.thread_elements() = vec<T, 2>(lanes_in[lane * 2 + 1], lanes_in[lane * 2]); // write, swapped pair
    v.thread_elements()[1] += T(1);                    // compound assignment through the reference
    simdgroup_store(v, vector_out, 8);
}
"""


@pytest.mark.parametrize("tname", ["float", "half", "bfloat"])
def test_thread_elements_is_apples_layout(run, rng, tname):
    msl, dtype, store, value = TYPES[tname]
    m = store(matrix_values(rng, (8, 8)))
    lanes = store(matrix_values(rng, (32, 2)))
    r = run(ELEMENTS_SRC.replace("ELEMENT_TYPE", msl),
            {"m_in": m, "lanes_in": lanes, "read_out": store(garbage(rng, 64) / 1e4),
             "write_out": store(garbage(rng, 64) / 1e4), "vector_out": store(garbage(rng, 64) / 1e4)},
            ["read_out", "write_out", "vector_out"], threadgroups=1, threads=32)
    # every lane, every element: what it reads is Apple's element, what it writes lands there
    exact(r["read_out"].reshape(32, 2), per_lane(m), f"{tname} thread_elements() read, lane by lane")
    exact(r["write_out"].reshape(8, 8), from_lanes(lanes), f"{tname} thread_elements()[i] = x, lane by lane")
    swapped = value(lanes[:, ::-1].copy())
    swapped[:, 1] += 1                                  # rounded to the element type on store
    exact(r["vector_out"].reshape(8, 8), store(from_lanes(swapped).astype(np.float32)),
          f"{tname} thread_elements() = vec, then [1] += 1")


# tinygrad's Metal tensor-core helper, as its renderer writes it, and a kernel in the shape of
# tinygrad's generated code: each lane loads its own two elements of A, B and C at the
# coordinates Apple's layout gives it, and the helper multiplies through thread_elements().
TINYGRAD_SRC = HEADER + """
float2 __WMMA_8_8_8_TIN_float(TIN2 a, TIN2 b, float2 c){
  simdgroup_TIN8x8 mat_a, mat_b; simdgroup_float8x8 mat_c;
  mat_a.thread_elements()[0] = a[0]; mat_b.thread_elements()[0] = b[0]; mat_c.thread_elements()[0] = c[0];
  mat_a.thread_elements()[1] = a[1]; mat_b.thread_elements()[1] = b[1]; mat_c.thread_elements()[1] = c[1];
  simdgroup_multiply_accumulate(mat_c, mat_a, mat_b, mat_c);
  return float2(mat_c.thread_elements()[0], mat_c.thread_elements()[1]);
}
kernel void r_16_16_4_8(device float* data0, const device TIN* data1, const device TIN* data2,
                        uint3 gid [[threadgroup_position_in_grid]], uint3 lid [[thread_position_in_threadgroup]]) {
  int gidx0 = gid.x; /* 2 */
  int gidx1 = gid.y; /* 2 */
  int lidx0 = lid.x; /* 32 */
  int row = (((lidx0>>4)&1)*4)+((lidx0>>1)&3);
  int col = (((lidx0>>3)&1)*4)+((lidx0&1)*2);
  float2 acc0 = float2(0.0f,0.0f);
  for (int ridx0 = 0; ridx0 < 4; ridx0++) {
    int alu0 = ((gidx1*8+row)*32)+(ridx0*8)+col;
    int alu1 = ((ridx0*8+row)*16)+(gidx0*8)+col;
    TIN2 val0 = TIN2(*(data1+alu0), *(data1+alu0+1));
    TIN2 val1 = TIN2(*(data2+alu1), *(data2+alu1+1));
    acc0 = __WMMA_8_8_8_TIN_float(val0, val1, acc0);
  }
  int alu2 = ((gidx1*8+row)*16)+(gidx0*8)+col;
  *((device float2*)(data0+alu2)) = acc0;
}
"""


@pytest.mark.parametrize("tname", ["float", "half", "bfloat"])
def test_tinygrad_tensor_core_kernel(run, rng, tname):
    msl, dtype, store, value = TYPES[tname]
    a = store(matrix_values(rng, (16, 32)))
    b = store(matrix_values(rng, (32, 16)))
    src = TINYGRAD_SRC.replace("TIN", msl)
    out = run(src, {"data0": garbage(rng, (16, 16)), "data1": a, "data2": b}, ["data0"],
              threadgroups=(2, 2, 1), threads=(32, 1, 1))["data0"]
    close(out, value(a) @ value(b), rtol=1e-6, atol=1e-6, what=f"tinygrad {tname} tensor-core GEMM")


# MLX steel's fragment idiom: per-lane fragments loaded from threadgroup memory at Apple's
# coordinates, float accumulators in an array of matrices, results stored through
# thread_elements(); the B operand is a half matrix converted per element.
MLX_SRC = HEADER + """
struct Frags { simdgroup_float8x8 acc[2][2]; };
static void mma(thread Frags& f, thread simdgroup_float8x8* a, thread simdgroup_float8x8* b) {
    for (short i = 0; i < 2; i++)
        for (short j = 0; j < 2; j++)
            simdgroup_multiply_accumulate(f.acc[i][j], a[i], b[j], f.acc[i][j]);
}
kernel void k(device const half* A [[buffer(0)]], device const half* B [[buffer(1)]],
              device float* D [[buffer(2)]], constant uint& K [[buffer(3)]],
              uint lid [[thread_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    threadgroup half As[16 * 8], Bs[8 * 16];
    const short qid = lane / 4;
    const short fm = (qid & 4) + ((lane / 2) % 4);
    const short fn = (qid & 2) * 2 + (lane % 2) * 2;
    Frags f;
    for (short i = 0; i < 2; i++)
        for (short j = 0; j < 2; j++)
            f.acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.f);
    for (uint k = 0; k < K; k += 8) {
        for (uint e = lid; e < 128; e += 32) {
            As[e] = A[(e / 8) * K + k + e % 8];
            Bs[e] = B[(k + e / 16) * 16 + e % 16];
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_float8x8 a[2], b[2];
        for (short i = 0; i < 2; i++) {
            a[i].thread_elements()[0] = float(As[(i * 8 + fm) * 8 + fn]);
            a[i].thread_elements()[1] = float(As[(i * 8 + fm) * 8 + fn + 1]);
            b[i].thread_elements() = float2(Bs[fm * 16 + i * 8 + fn], Bs[fm * 16 + i * 8 + fn + 1]);
        }
        mma(f, a, b);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    for (short i = 0; i < 2; i++)
        for (short j = 0; j < 2; j++) {
            float2 v = f.acc[i][j].thread_elements();
            D[(i * 8 + fm) * 16 + j * 8 + fn] = v.x;
            D[(i * 8 + fm) * 16 + j * 8 + fn + 1] = v.y;
        }
}
"""


def test_mlx_steel_fragments(run, rng):
    K = 48
    a = matrix_values(rng, (16, K)).astype(np.float16)
    b = matrix_values(rng, (K, 16)).astype(np.float16)
    out = run(MLX_SRC, {"A": a, "B": b, "D": garbage(rng, (16, 16)), "K": str(K)}, ["D"],
              threadgroups=1, threads=32)["D"]
    close(out, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-6, atol=1e-6,
          what="MLX-style fragments through thread_elements()")


# simdgroup_load/store/multiply with every operand type, an array of accumulators, and a K
# loop: the GEMM shape of llama.cpp's kernel_mul_mm, small
MIXED_SRC = HEADER + """
kernel void k(device const TA* A [[buffer(0)]], device const TB* B [[buffer(1)]],
              device const TC* C [[buffer(2)]], device TD* D [[buffer(3)]],
              threadgroup TA* As [[threadgroup(0)]], uint lid [[thread_index_in_threadgroup]]) {
    simdgroup_matrix<TC, 8, 8> acc[2];
    simdgroup_load(acc[0], C, 16);
    simdgroup_load(acc[1], C, 16, ulong2(8, 0));
    for (uint k = 0; k < 32; k += 8) {
        for (uint e = lid; e < 64; e += 32) As[e] = A[(e / 8) * 32 + k + e % 8];
        threadgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_matrix<TA, 8, 8> a;
        simdgroup_matrix<TB, 8, 8> b0, b1;
        simdgroup_load(a, As, 8);
        simdgroup_load(b0, B + k * 16, 16);
        simdgroup_load(b1, B + k * 16 + 8, 16);
        simdgroup_multiply_accumulate(acc[0], a, b0, acc[0]);
        simdgroup_multiply_accumulate(acc[1], a, b1, acc[1]);
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    simdgroup_matrix<TD, 8, 8> d0, d1;
    simdgroup_multiply(d0, acc[0], make_filled_simdgroup_matrix<TC, 8, 8>(TC(0.5)));
    simdgroup_multiply_accumulate(d1, acc[1], make_filled_simdgroup_matrix<TC, 8, 8>(TC(0.25)), acc[1]);
    simdgroup_store(d0, D, 16);
    simdgroup_store(d1, D, 16, ulong2(8, 0));
}
"""


@pytest.mark.parametrize("ta,tb,tc,td", [
    ("half", "half", "float", "float"),
    ("bfloat", "bfloat", "float", "float"),
    ("half", "half", "half", "half"),
    ("float", "float", "float", "float"),
    ("half", "float", "float", "float"),
    ("bfloat", "half", "float", "bfloat"),
])
def test_operand_types(run, rng, ta, tb, tc, td):
    A = matrix_values(rng, (8, 32)) / 4
    B = matrix_values(rng, (32, 16)) / 4
    C = matrix_values(rng, (8, 16))
    ins = {"A": TYPES[ta][2](A), "B": TYPES[tb][2](B), "C": TYPES[tc][2](C),
           "D": TYPES[td][2](garbage(rng, (8, 16)) / 1e4)}
    src = MIXED_SRC.replace("TA", TYPES[ta][0]).replace("TB", TYPES[tb][0]).replace("TC", TYPES[tc][0]).replace("TD", TYPES[td][0])
    out = run(src, ins, ["D"], threadgroups=1, threads=32, tgmem={0: 256})["D"]
    acc = A.astype(np.float64) @ B.astype(np.float64) + TYPES[tc][3](ins["C"])
    # an accumulator of the element type rounds at each multiply_accumulate: allow its epsilon
    eps = {"float": 1e-6, "half": 2e-3, "bfloat": 1.6e-2}
    tol = max(eps[tc], eps[td]) * 4
    want = np.concatenate([acc[:, :8] @ np.full((8, 8), 0.5), acc[:, 8:] @ np.full((8, 8), 0.25) + acc[:, 8:]], axis=1)
    close(TYPES[td][3](out), want, rtol=tol, atol=tol * np.abs(want).max(),
          what=f"{ta} x {tb} + {tc} -> {td}")


# float matrices keep float accuracy: a long K loop of products of full-precision floats
FLOAT_ACCURACY_SRC = HEADER + """
kernel void k(device const float* A [[buffer(0)]], device const float* B [[buffer(1)]],
              device float* D [[buffer(2)]]) {
    simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.f), a, b;
    for (uint k = 0; k < 256; k += 8) {
        simdgroup_load(a, A + k, 256);
        simdgroup_load(b, B + k * 8, 8);
        simdgroup_multiply_accumulate(acc, a, b, acc);
    }
    simdgroup_store(acc, D, 8);
}
"""


def test_float_matrices_keep_float_accuracy(run, rng):
    A = floats(rng, (8, 256), 0.5, 2.0)
    B = floats(rng, (256, 8), 0.5, 2.0)
    out = run(FLOAT_ACCURACY_SRC, {"A": A, "B": B, "D": garbage(rng, (8, 8))}, ["D"], threadgroups=1, threads=32)["D"]
    want = A.astype(np.float64) @ B.astype(np.float64)
    # all terms positive: float32 accumulation of 256 terms is within ~1e-6 relative;
    # TF32 alone (10-bit mantissa) would miss by ~1e-4
    close(out, want, rtol=1e-5, atol=0, what="float simdgroup GEMM accuracy")


# matrices passed to and returned from helpers, inside structs, and selected by index
STRUCT_SRC = HEADER + """
struct Pair { simdgroup_half8x8 x; simdgroup_float8x8 y; };
static simdgroup_float8x8 times(simdgroup_half8x8 a, simdgroup_half8x8 b, simdgroup_float8x8 c) {
    simdgroup_float8x8 d;
    simdgroup_multiply_accumulate(d, a, b, c);
    return d;
}
static Pair make_pair(device const half* p, device const float* q) {
    Pair r;
    simdgroup_load(r.x, p, 8);
    simdgroup_load(r.y, q, 8);
    return r;
}
kernel void k(device const half* A [[buffer(0)]], device const float* C [[buffer(1)]],
              device float* D [[buffer(2)]], constant uint& pick [[buffer(3)]]) {
    Pair p = make_pair(A, C);
    simdgroup_half8x8 hs[3];
    for (uint i = 0; i < 3; i++) simdgroup_load(hs[i], A + 64 * i, 8);
    simdgroup_float8x8 d = times(p.x, hs[pick], p.y);
    simdgroup_store(d, D, 8);
}
"""


def test_matrices_in_structs_functions_arrays(run, rng):
    A = matrix_values(rng, (3 * 8, 8)).astype(np.float16)
    C = matrix_values(rng, (8, 8))
    out = run(STRUCT_SRC, {"A": A, "C": C, "D": garbage(rng, (8, 8)), "pick": "2"}, ["D"],
              threadgroups=1, threads=32)["D"]
    A64 = A.astype(np.float64)
    close(out, A64[:8] @ A64[16:] + C, rtol=1e-6, atol=1e-6, what="matrices through structs, helpers, arrays")


# Nests and runs of multiplies that the cuda backend fuses two to a tensor-core instruction
# (tests/cuda/kernels/matrix_pairs.metal says how many each): the fused code must compute
# what the multiplies do one after another, hazards between them included.
PAIRS_SRC = (pathlib.Path(__file__).resolve().parents[1] / "cuda" / "kernels" / "matrix_pairs.metal").read_text()


def pairs_reference(name, A, B, C):
    """the matrices each kernel of matrix_pairs.metal stores, by slot of D"""
    mm = lambda x, y: x @ y  # noqa: E731
    if name == "gemm_tile":
        acc = {(i, j): (i - j) + mm(A[i], B[j]) for i in range(4) for j in range(4)}
        return {**{i: acc[i, i] for i in range(4)}, **{4 + i: acc[i, 3 - i] for i in range(4)}}
    if name == "llama_style":
        return {i: 0.5 + mm(A[i // 4], B[i % 4]) for i in range(8)}
    if name == "chain":
        x = [C[0]]
        for i in range(4):
            x.append(mm(A[i], B[0]) + x[i])
        return dict(enumerate(x))
    if name == "straight":
        return {0: C[0] + mm(A[0], B[0]), 1: C[1] + mm(A[1], B[1]), 2: C[2] + mm(A[2], B[0]), 3: C[3] + mm(A[3], B[1])}
    if name == "in_between":
        d0 = C[0] + mm(A[0], B[0])
        return {0: d0, 1: d0 + mm(A[1], B[1]), 2: C[1] + mm(A[2], B[0])}
    if name == "hazard":
        t = C[1] + mm(A[1], B[1])
        return {0: C[0] + mm(A[0], B[0]), 1: t, 2: t + mm(A[2], B[0])}
    if name == "half_accumulators":
        return {i: C[i] + mm(A[i], B[0]) for i in range(4)}
    if name in ("k_steps", "k_steps_half_acc", "k_steps_float"):
        # a 32x16 tile of A times a 16x32 tile of B, K in two steps of 8 through threadgroup memory
        At, Bt = A.reshape(32, 16), B.reshape(16, 32)
        acc = {(i, j): (i - j) + mm(At[8 * i:8 * i + 8], Bt[:, 8 * j:8 * j + 8]) for i in range(4) for j in range(4)}
        return {**{i: acc[i, i] for i in range(4)}, **{4 + i: acc[i, 3 - i] for i in range(4)}}
    if name == "k_steps_transposed":
        # rows 0-7 of an 8x16 A times the transpose of a 32x16 B, b loaded transposed
        At, Bt = A.reshape(-1)[:128].reshape(8, 16), B.reshape(32, 16)
        return {j: C[j] + mm(At, Bt[8 * j:8 * j + 8].T) for j in range(4)}
    if name == "k_steps_read_between":
        At, Bt = A.reshape(-1)[:256].reshape(16, 16), B.reshape(-1)[:256].reshape(16, 16)
        acc1 = 2 + mm(At[8:, :8], Bt[:8, :8])
        seen0 = mm(At[:8, :8], Bt[:8, :8]) + acc1
        acc1 = acc1 + mm(At[8:, 8:], Bt[8:, :8])
        return {0: 1 + mm(At[:8], Bt[:, :8]), 1: acc1, 2: seen0, 3: mm(At[:8, 8:], Bt[8:, :8]) + acc1}
    raise KeyError(name)


PAIRS_KERNELS = {  # name: (operand type, accumulator type)
    "gemm_tile": ("half", "float"), "llama_style": ("float", "float"), "chain": ("float", "float"),
    "straight": ("float", "float"), "in_between": ("bfloat", "float"), "hazard": ("half", "float"),
    "half_accumulators": ("half", "half"), "k_steps": ("half", "float"), "k_steps_half_acc": ("half", "half"),
    "k_steps_float": ("float", "float"), "k_steps_transposed": ("bfloat", "float"),
    "k_steps_read_between": ("half", "float"),
}


@pytest.mark.parametrize("name", sorted(PAIRS_KERNELS))
def test_paired_multiplies(run, rng, name):
    ta, tc = PAIRS_KERNELS[name]
    A, B, C = (matrix_values(rng, (8, 8, 8)) / 4 for _ in range(3))
    ins = {"A": TYPES[ta][2](A), "B": TYPES[ta][2](B), "C": TYPES[tc][2](C),
           "D": TYPES[tc][2](garbage(rng, (8, 8, 8)) / 1e4)}
    out = run(PAIRS_SRC, ins, ["D"], threadgroups=1, threads=32, kernel=name)["D"]
    got = TYPES[tc][3](out)
    tol = 2e-3 if tc == "half" else 1e-6
    for slot, want in pairs_reference(name, *(TYPES[t][3](ins[k]) for k, t in (("A", ta), ("B", ta), ("C", tc)))).items():
        close(got[slot], want, rtol=tol, atol=tol, what=f"{name}: matrix {slot} of D")


# simdgroup_load/store at every alignment: rows of 16 bytes in threadgroup memory (the
# cuda backend's ldmatrix), odd row lengths and origins (each lane's pair split), device
# memory at an odd element, transposed and not
ALIGN_SRC = HEADER + """
kernel void k(device const half* src [[buffer(0)]], device half* out [[buffer(1)]],
              device half* spread [[buffer(2)]], constant uint& ox [[buffer(3)]],
              uint lid [[thread_index_in_threadgroup]]) {
    threadgroup half stage[16 * 17];
    for (uint i = lid; i < 16 * 17; i += 32) stage[i] = src[i];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    simdgroup_half8x8 m[6];
    simdgroup_load(m[0], stage, 16);
    simdgroup_load(m[1], stage, 16, ulong2(8, 8), true);
    simdgroup_load(m[2], stage + 1, 17, ulong2(0, 0), true);
    simdgroup_load(m[3], stage, 17, ulong2(ox, 1));
    simdgroup_load(m[4], src + 3, 16);
    simdgroup_load(m[5], src, 16, ulong2(2, 3), true);
    for (short i = 0; i < 6; i++) simdgroup_store(m[i], out + 64 * i, 8);
    simdgroup_store(m[0], spread, 9, ulong2(1, 0));
    simdgroup_store(m[3], spread + 80, 8, ulong2(0, 0), true);
}
"""


def test_loads_and_stores_at_every_alignment(run, rng):
    src = matrix_values(rng, 16 * 17).astype(np.float16)
    r = run(ALIGN_SRC, {"src": src, "out": garbage(rng, (6, 8, 8), np.float16),
                        "spread": np.zeros(160, np.float16), "ox": "3"},
            ["out", "spread"], threadgroups=1, threads=32)
    s16 = src[:256].reshape(16, 16)
    s17 = src.reshape(16, 17)
    flat = src.astype(np.float64)
    want = [s16[:8, :8], s16[8:16, 8:16].T, s17[:8, 1:9].T,
            s17[1:9, 3:11], flat[3:3 + 128].reshape(8, 16)[:, :8], s16[3:11, 2:10].T]
    for i, w in enumerate(want):
        exact(r["out"][i], np.asarray(w, np.float16), f"load {i}")
    spread = np.zeros(160, np.float16)
    for row in range(8):
        spread[row * 9 + 1: row * 9 + 9] = s16[row, :8]
    spread[80:144] = np.asarray(want[3], np.float16).T.reshape(-1)
    exact(r["spread"], spread, "stores at an odd origin and transposed")
