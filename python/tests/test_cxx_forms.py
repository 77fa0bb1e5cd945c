"""C++ forms of real kernel libraries, run against NumPy: simdgroup matrices multiplied with
`*`, a kernel template explicitly instantiated by its parameter list alone (the template
arguments deduced from it, as MLX's conv.metal does), and a static constexpr member array
defined again out of its class (C++14's form)."""

import numpy as np

import enigma

SOURCE = """
#include <metal_stdlib>
using namespace metal;
template <int N> struct Params { int n; float scale[N]; };
template <int R>
struct Table {
    static constexpr constant float w[2][R] = {{1.0f, 2.0f, 3.0f}, {-1.0f, 0.5f, 4.0f}};
};
constexpr constant float Table<3>::w[2][3];

template <typename T, int N>
[[kernel]] void scale_rows(const device T* in [[buffer(0)]], device T* out [[buffer(1)]],
                           const constant Params<N>* p [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    out[i] = in[i] * T(p->scale[i % N]) + T(Table<3>::w[1][i % 3]);
}
template [[host_name("scale_rows_f32_2")]] [[kernel]] void scale_rows(
    const device float* in [[buffer(0)]], device float* out [[buffer(1)]],
    const constant Params<2>* p [[buffer(2)]], uint i [[thread_position_in_grid]]);

kernel void matmul8(const device float* a [[buffer(0)]], const device float* b [[buffer(1)]],
                    device float* c [[buffer(2)]]) {
    simdgroup_float8x8 ma, mb;
    simdgroup_load(ma, a, 8);
    simdgroup_load(mb, b, 8);
    simdgroup_float8x8 mc = ma * mb;
    simdgroup_store(mc, c, 8);
}
"""


def test_matrix_operator_multiply(rt, rng):
    a = rng.standard_normal((8, 8)).astype(np.float32)
    b = rng.standard_normal((8, 8)).astype(np.float32)
    c = np.zeros((8, 8), np.float32)
    rt.launch(enigma.compile_source(SOURCE, "matmul8"), grid=(32, 1, 1), threads=(32, 1, 1), a=a, b=b, c=c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_explicit_instantiation_deduced_from_parameters(rt, rng):
    n = int(rng.integers(10, 100))
    x = rng.standard_normal(n).astype(np.float32)
    out = np.zeros_like(x)
    params = np.zeros(1, np.dtype([("n", np.int32), ("scale", np.float32, 2)]))
    params[0] = (n, rng.standard_normal(2))
    rt.launch(enigma.compile_source(SOURCE, "scale_rows_f32_2"), grid=(n, 1, 1), threads=(min(n, 32), 1, 1),
              **{"in": x, "out": out, "p": params.view(np.uint8)})
    i = np.arange(n)
    want = x.astype(np.float64) * params[0]["scale"][i % 2].astype(np.float64) + np.array([-1.0, 0.5, 4.0])[i % 3]
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)


DIVMOD = """
#include <metal_stdlib>
using namespace metal;
struct DivMod {
    template <typename T>
    metal::array<T, 2> operator()(T x, T y) thread { return {T(x / y), T(x % y)}; }
};
kernel void divmod(const device int* a [[buffer(0)]], const device int* b [[buffer(1)]],
                   device int* q [[buffer(2)]], device int* r [[buffer(3)]], uint i [[thread_position_in_grid]]) {
    auto out = DivMod()(a[i], b[i]);
    q[i] = out[0];
    r[i] = out[1];
}
"""


def test_function_returning_metal_array(rt, rng):
    n = int(rng.integers(20, 200))
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    b = rng.integers(1, 50, n).astype(np.int32)
    q, r = np.zeros(n, np.int32), np.zeros(n, np.int32)
    rt.launch(enigma.compile_source(DIVMOD, "divmod"), grid=(n, 1, 1), threads=(min(n, 32), 1, 1), a=a, b=b, q=q, r=r)
    np.testing.assert_array_equal(q, np.fix(a / b).astype(np.int32))  # C division truncates
    np.testing.assert_array_equal(r, a - np.fix(a / b).astype(np.int32) * b)


CONVERTS = """
#include <metal_stdlib>
using namespace metal;
struct cplx {
    float re, im;
    template <typename U, typename = enable_if_t<is_floating_point_v<U>>>
    constexpr operator U() const thread { return U(re); }
};
static float twice(float x) { return 2.0f * x; }
kernel void conv(const device float2* a [[buffer(0)]], device float* o [[buffer(1)]], uint i [[thread_position_in_grid]]) {
    cplx c = {a[i].x, a[i].y};
    o[i] = twice(c);   // through the conversion operator template, as MLX's epilogues take complex64_t
}
"""


def test_argument_through_conversion_operator_template(rt, rng):
    n = int(rng.integers(10, 100))
    a = rng.standard_normal((n, 2)).astype(np.float32)
    o = np.zeros(n, np.float32)
    rt.launch(enigma.compile_source(CONVERTS, "conv"), grid=(n, 1, 1), threads=(min(n, 32), 1, 1), a=a, o=o)
    np.testing.assert_array_equal(o, 2 * a[:, 0])
