"""Class templates: type and value parameters with defaults, a template used as a field of
another template, member functions (const, returning the injected class name) of each
instantiation, checked against NumPy."""
import numpy as np

from semharness import close, exact, floats, garbage

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"

SRC = HEADER + """
template <typename T, int N = 2>
struct Pair {
    T a;
    T b[N];
    T sum() const { T s = a; for (int i = 0; i < N; i++) s += b[i]; return s; }
    Pair scaled(T k) const { Pair p = *this; p.a *= k; return p; }
};
template <typename T>
struct Box { Pair<T, 3> inner; T extra; };
kernel void k(device const float *x [[buffer(0)]], device float *o [[buffer(1)]], device int *io [[buffer(2)]],
              uint i [[thread_position_in_grid]]) {
    Pair<float> p;
    p.a = x[i];
    p.b[0] = x[i] * x[i];
    p.b[1] = 2.0f;
    Pair<float> q = p.scaled(3.0f);
    Box<int> bx;
    bx.inner.a = int(i);
    bx.inner.b[0] = 1; bx.inner.b[1] = -2 * int(i); bx.inner.b[2] = 3;
    bx.extra = 4;
    o[i] = q.sum();
    io[i] = bx.inner.sum() + bx.extra;
}
"""


def test_class_template_instances(run, rng):
    n = 256
    x = floats(rng, n, -3, 3)
    r = run(SRC, {"x": x, "o": garbage(rng, n), "io": garbage(rng, n, np.int32)}, ["o", "io"], grid=n, threads=64)
    xd = x.astype(np.float64)
    close(r["o"], 3 * xd + xd * xd + 2, rtol=1e-5, atol=1e-5, what="Pair<float>::scaled then sum")
    idx = np.arange(n)
    exact(r["io"], (idx + 1 - 2 * idx + 3 + 4).astype(np.int32), "Pair<int, 3> inside Box<int>")
