"""Constructors: default, value and converting constructors with member initializer lists
(paren and brace forms) and a body after them, overloads chosen by the object's address
space (`thread`/`threadgroup` after the parameters), in a class template and a plain
struct, used as S x(a), S x{a}, S x = v, S x; and S(a). Checked against NumPy."""
import numpy as np

from semharness import close, floats, garbage

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"

SRC = HEADER + """
template <typename T>
struct cplx {
    T re;
    T im;
    cplx() thread : re(0), im(0) {}
    cplx() threadgroup : re(1), im(1) {}
    cplx(T r, T i) thread : re(r), im{i} {}
    cplx(T r) thread : re(r), im(0) { im = im + T(1); }
    T norm2() const thread { return re * re + im * im; }
};
struct Acc {
    float total;
    int count;
    Acc(float start) : total(start), count(0) {}
    void add(float v) { total += v; count++; }
};
kernel void k(device const float *x [[buffer(0)]], device float *o [[buffer(1)]], uint i [[thread_position_in_grid]]) {
    cplx<float> a(x[i], 2.0f);
    cplx<float> b{3.0f, x[i]};
    cplx<float> c = 5.0f;
    cplx<float> z;
    cplx<float> w = cplx<float>(x[i]);
    Acc acc(1.0f);
    acc.add(a.norm2());
    acc.add(b.norm2() + c.im + z.re + w.im);
    acc.add(w.re);
    o[i] = acc.total + float(acc.count);
}
"""


def test_constructors(run, rng):
    n = 256
    x = floats(rng, n, -3, 3)
    r = run(SRC, {"x": x, "o": garbage(rng, n)}, ["o"], grid=n, threads=64)
    xd = x.astype(np.float64)
    a = xd * xd + 4
    b = 9 + xd * xd
    want = 1 + a + (b + 1 + 0 + 1) + xd + 3
    close(r["o"], want, rtol=1e-5, atol=1e-4, what="constructed values")
