"""Templates as real kernel libraries use them: kernel templates named by explicit
instantiation with [[host_name]] (chosen with -k), typedef decltype(...) of a kernel
template specialisation, explicit specializations of function templates, template value
parameters with defaults, and function-pointer template parameters."""
import numpy as np
import pytest

from semharness import close, exact, floats, garbage, ints

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"
N = 256

SRC = HEADER + """
template <typename T> T bump(T x) { return x + T(1); }
template <> float bump<float>(float x) { return x * 0.5f; }     // a specialization wins

template <int N> int shift(int a) { return a * N; }
template <> int shift<3>(int a) { return a - 3; }

inline float load_neg(device const float *p, uint i) { return -p[i]; }
inline float load_sq(device const float *p, uint i) { return p[i] * p[i]; }

template <typename T, float (*load)(device const float *, uint), int K = 2>
kernel void combine(device const float *w [[buffer(0)]], device const T *x [[buffer(1)]],
                    device float *out [[buffer(2)]], device int *iout [[buffer(3)]],
                    uint i [[thread_position_in_grid]]) {
    out[i] = load(w, i) * float(K) + float(bump(x[i]));
    iout[i] = shift<K>(int(i));
}

typedef decltype(combine<float, load_neg>) combine_t;

template [[host_name("combine_f_neg")]] kernel combine_t combine<float, load_neg>;
template [[host_name("combine_i_sq_3")]] kernel combine_t combine<int, load_sq, 3>;
template [[host_name("combine_h_neg_5")]] [[kernel]] decltype(combine<half, load_neg, 5>) combine<half, load_neg, 5>;
"""


def test_float_instantiation(run, rng):
    w = floats(rng, N, -4, 4)
    x = floats(rng, N, -4, 4)
    r = run(SRC, {"w": w, "x": x, "out": garbage(rng, N), "iout": garbage(rng, N, np.int32)},
            ["out", "iout"], grid=N, threads=64, kernel="combine_f_neg")
    want = -w.astype(np.float64) * 2 + x.astype(np.float64) * 0.5
    close(r["out"], want, what="specialized bump<float>, load_neg, K defaulted to 2")
    exact(r["iout"], (np.arange(N) * 2).astype(np.int32), "shift<2>")


def test_int_instantiation_with_value_argument(run, rng):
    w = floats(rng, N, -4, 4)
    x = ints(rng, N, -1000, 1000, np.int32)
    r = run(SRC, {"w": w, "x": x, "out": garbage(rng, N), "iout": garbage(rng, N, np.int32)},
            ["out", "iout"], grid=N, threads=64, kernel="combine_i_sq_3")
    want = w.astype(np.float64) ** 2 * 3 + (x.astype(np.float64) + 1)
    close(r["out"], want, rtol=1e-5, atol=1e-4, what="primary bump<int>, load_sq, K=3")
    exact(r["iout"], (np.arange(N) - 3).astype(np.int32), "specialized shift<3>")


def test_half_instantiation_through_decltype(run, rng):
    w = floats(rng, N, -4, 4)
    x = floats(rng, N, -4, 4).astype(np.float16)
    r = run(SRC, {"w": w, "x": x, "out": garbage(rng, N), "iout": garbage(rng, N, np.int32)},
            ["out", "iout"], grid=N, threads=64, kernel="combine_h_neg_5")
    bumped = (x.astype(np.float32) + np.float32(1)).astype(np.float16).astype(np.float64)
    want = -w.astype(np.float64) * 5 + bumped
    close(r["out"], want, rtol=1e-5, atol=1e-5, what="bump<half> rounded to half, K=5")
    exact(r["iout"], (np.arange(N) * 5).astype(np.int32), "shift<5>")


def test_unknown_host_name_is_refused(run, rng):
    w = floats(rng, N, -4, 4)
    r = run(SRC, {"w": w, "x": w, "out": garbage(rng, N), "iout": garbage(rng, N, np.int32)},
            ["out"], grid=N, threads=64, kernel="combine", expect_rc=None)
    assert r.returncode != 0
    assert "combine" in r.stderr


# a local struct of a function template is a new struct in each instance (MLX's quantized
# kernels: `typedef struct { W_T wi[n]; } vec_w;`); one kernel calls two instances, so both
# structs meet in one generated program, as they do when kernels are built in batches
LOCAL_STRUCT_SRC = HEADER + """
template <typename T, int N>
float sum_packed(device const T *p) {
    typedef struct { T v[N]; } pack;
    pack local = *((device const pack *)p);
    float s = 0.0f;
    for (int j = 0; j < N; j++) s += float(local.v[j]) * float(j + 1);
    return s;
}
kernel void k(device const uint *a [[buffer(0)]], device const uchar *b [[buffer(1)]],
              device float *out [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    out[i] = sum_packed<uint, 2>(a + 2 * i) - sum_packed<uchar, 4>(b + 4 * i);
}
"""


def test_local_structs_of_two_instances(run, rng):
    a = ints(rng, 2 * N, 0, 1000, np.uint32)
    b = ints(rng, 4 * N, 0, 255, np.uint8)
    r = run(LOCAL_STRUCT_SRC, {"a": a, "b": b, "out": garbage(rng, N)}, ["out"], grid=N, threads=64)
    want = a.reshape(N, 2).astype(np.float64) @ [1, 2] - b.reshape(N, 4).astype(np.float64) @ [1, 2, 3, 4]
    close(r["out"], want, rtol=1e-6, atol=1e-3, what="pack<uint,2> and pack<uchar,4> side by side")
