"""Function pointers as enigma resolves them (src/front/function_pointer.c): template
parameters of function-pointer type — written through an alias template, a typedef or a
`using` — whose arguments name functions (f, f<T>, &f<T>, or a parameter passing its
function on), each call through one a direct call. The radix-butterfly shape of MLX's FFT,
written afresh: one generic butterfly template given the codelet to run, over float and int.
Also explicit specializations of a class template instance's members, and clang's
__builtin_ctz/clz/popcount. References are NumPy, from random inputs."""
import numpy as np

from semharness import close, exact, floats, garbage, ints

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"
N = 256

# a codelet per radix, the butterfly template given the codelet, and a stage template that
# passes its codelet on to the butterfly: the same butterfly instantiated with different
# codelets through the stage's own parameter must call each one
BUTTERFLY_SRC = HEADER + """
template <typename T> using Codelet = void (*)(thread T*, thread T*);
typedef float (*Combine)(float, float);
using IntCombine = int (*)(int, int);

template <typename T> void sum_diff2(thread T* x, thread T* y) { y[0] = x[0] + x[1]; y[1] = x[0] - x[1]; }
template <typename T> void sum_diff_scaled3(thread T* x, thread T* y) {
    y[0] = x[0] + x[1] + x[2]; y[1] = x[0] - x[2]; y[2] = T(2) * x[1] - x[0];
}
float weighted(float a, float b) { return 0.25f * a + b; }
float weighted(float a, float b, float c) { return a + b + c; }   // not the pointer's arity
int bitmix(int a, int b) { return (a ^ b) + 3; }

template <typename T, int R, Codelet<T> codelet>
void butterfly(thread T* x, thread T* y, T twiddle) {
    for (int t = 1; t < R; t++) x[t] = x[t] * twiddle;
    codelet(x, y);
}

template <typename T, int R, Codelet<T> codelet>
void stage(device const T* in, device T* out, uint i, T twiddle) {
    T x[4], y[4];
    for (int t = 0; t < R; t++) x[t] = in[i * R + t];
    butterfly<T, R, codelet>(x, y, twiddle);
    for (int t = 0; t < R; t++) out[i * R + t] = y[t];
}

template <Combine c> float fold(float a, float b) { return c(a, b); }
template <IntCombine c> int fold_int(int a, int b) { return c(a, b); }

kernel void k(device const float* fin [[buffer(0)]], device float* f2 [[buffer(1)]],
              device float* f3 [[buffer(2)]], device const int* iin [[buffer(3)]],
              device int* i2 [[buffer(4)]], device int* i3 [[buffer(5)]],
              device float* folded [[buffer(6)]], device int* ifolded [[buffer(7)]],
              uint i [[thread_position_in_grid]]) {
    stage<float, 2, sum_diff2<float>>(fin, f2, i, 1.5f);
    stage<float, 3, &sum_diff_scaled3<float>>(fin, f3, i, -0.5f);
    stage<int, 2, sum_diff2<int>>(iin, i2, i, 3);
    stage<int, 3, sum_diff_scaled3<int>>(iin, i3, i, -2);
    folded[i] = fold<weighted>(fin[i], fin[i + 1]);
    ifolded[i] = fold_int<bitmix>(iin[i], iin[i + 1]);
}
"""


def _sum_diff2(x):
    return np.stack([x[:, 0] + x[:, 1], x[:, 0] - x[:, 1]], axis=1)


def _sum_diff_scaled3(x):
    return np.stack([x[:, 0] + x[:, 1] + x[:, 2], x[:, 0] - x[:, 2], 2 * x[:, 1] - x[:, 0]], axis=1)


def _stage(x, r, twiddle, codelet):
    x = x[: N * r].reshape(N, r).copy()
    x[:, 1:] *= twiddle
    return codelet(x).reshape(-1)


def test_codelets_through_template_parameters(run, rng):
    fin = floats(rng, 3 * N + 1, -4, 4)
    iin = ints(rng, 3 * N + 1, -1000, 1000)
    r = run(BUTTERFLY_SRC, {"fin": fin, "f2": garbage(rng, 2 * N), "f3": garbage(rng, 3 * N), "iin": iin,
                            "i2": garbage(rng, 2 * N, np.int32), "i3": garbage(rng, 3 * N, np.int32),
                            "folded": garbage(rng, N), "ifolded": garbage(rng, N, np.int32)},
            ["f2", "f3", "i2", "i3", "folded", "ifolded"], grid=N, threads=64)
    f = fin.astype(np.float64)
    i = iin.astype(np.int64)
    close(r["f2"], _stage(f, 2, 1.5, _sum_diff2), what="radix-2 stage, float")
    close(r["f3"], _stage(f, 3, -0.5, _sum_diff_scaled3), what="radix-3 stage, float")
    exact(r["i2"], _stage(i, 2, 3, _sum_diff2).astype(np.int32), "radix-2 stage, int")
    exact(r["i3"], _stage(i, 3, -2, _sum_diff_scaled3).astype(np.int32), "radix-3 stage, int")
    close(r["folded"], 0.25 * f[:N] + f[1:N + 1], what="fold<weighted>")
    exact(r["ifolded"], ((i[:N] ^ i[1:N + 1]) + 3).astype(np.int32), "fold_int<bitmix>")


MEMBER_SPEC_SRC = HEADER + """
template <typename T, int N = 2>
struct Scaler {
    T v;
    int factor() const thread { return N; }
    T scaled() const thread { return v * T(factor()); }
    T shift(T by) const thread { return v + by; }
    T shift(int by) const thread { return v + T(by * 100); }
};
template <> int Scaler<float>::factor() const thread { return 7; }
template <> float Scaler<float, 3>::shift(float by) const thread { return v - by; }

kernel void k(device const float* x [[buffer(0)]], device const int* n [[buffer(1)]],
              device float* f [[buffer(2)]], device int* m [[buffer(3)]], device int* bits [[buffer(4)]],
              uint i [[thread_position_in_grid]]) {
    Scaler<float> a{x[i]};
    Scaler<float, 3> b{x[i]};
    Scaler<int> c{n[i]};
    f[i] = a.scaled() + 10.0f * b.scaled() + 100.0f * b.shift(0.5f) + 1000.0f * b.shift(1);
    m[i] = c.scaled();
    uint u = uint(n[i]) | 1u;
    constexpr int k = __builtin_ctz(48u) + __builtin_clz(1u) * 100 + __builtin_popcountll(0xF0F0ull) * 10000;
    bits[i] = __builtin_ctz(u << (i % 7u)) + 100 * __builtin_clz(u) + 10000 * __builtin_popcount(u) + k;
}
"""


def test_member_specializations_and_bit_builtins(run, rng):
    x = floats(rng, N, -4, 4)
    n = ints(rng, N, 1, 1 << 30)
    r = run(MEMBER_SPEC_SRC, {"x": x, "n": n, "f": garbage(rng, N), "m": garbage(rng, N, np.int32),
                              "bits": garbage(rng, N, np.int32)}, ["f", "m", "bits"], grid=N, threads=64)
    xd = x.astype(np.float64)
    close(r["f"], 7 * xd + 10 * 3 * xd + 100 * (xd - 0.5) + 1000 * (xd + 100), rtol=1e-5, atol=1e-3,
          what="specialized and template members")
    exact(r["m"], (n.astype(np.int64) * 2).astype(np.int32), "Scaler<int>::scaled, the template's")
    u = n.astype(np.int64) | 1
    shifted = (u << (np.arange(N) % 7)) & 0xFFFFFFFF
    ctz = np.array([(int(s) & -int(s)).bit_length() - 1 for s in shifted])
    clz = np.array([32 - int(v).bit_length() for v in u])
    pop = np.array([bin(int(v)).count("1") for v in u])
    k = 4 + 31 * 100 + 8 * 10000
    exact(r["bits"], (ctz + 100 * clz + 10000 * pop + k).astype(np.int32), "__builtin_ctz/clz/popcount")
