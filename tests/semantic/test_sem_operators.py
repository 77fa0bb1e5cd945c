"""Operator overloading: member operators (+, +=, [], ==) and free operators (scalar * S,
S * scalar, overloaded by argument order), a compound assignment returning a reference to
*this, and constructors building the results. Checked against NumPy."""
import numpy as np

from semharness import close, floats, garbage

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"

SRC = HEADER + """
struct V2 {
    float x, y;
    V2(float a, float b) : x(a), y(b) {}
    V2 operator+(V2 o) const { return V2(x + o.x, y + o.y); }
    V2 &operator+=(V2 o) { x += o.x; y += o.y; return *this; }
    float operator[](int i) const { return i == 0 ? x : y; }
    bool operator==(V2 o) const { return x == o.x && y == o.y; }
};
V2 operator*(V2 a, float k) { return V2(a.x * k, a.y * k); }
V2 operator*(float k, V2 a) { return a * k; }
kernel void k(device const float *x [[buffer(0)]], device float *o [[buffer(1)]], uint i [[thread_position_in_grid]]) {
    V2 a(x[i], 1.0f);
    V2 b = a + V2(2.0f, 3.0f);
    (b += a * 2.0f) += V2(0.25f, 0.0f);
    V2 c = 0.5f * b;
    o[i] = c[0] + 10.0f * c[1] + (a == a ? 100.0f : 0.0f) + (a == b ? 1000.0f : 0.0f);
}
"""


def test_operators(run, rng):
    n = 256
    x = floats(rng, n, -3, 3)
    r = run(SRC, {"x": x, "o": garbage(rng, n)}, ["o"], grid=n, threads=64)
    xd = x.astype(np.float64)
    bx = xd + 2 + 2 * xd + 0.25
    by = 1 + 3 + 2
    want = 0.5 * bx + 10 * 0.5 * by + 100
    close(r["o"], want, rtol=1e-5, atol=1e-4, what="overloaded operators")


CONV_SRC = HEADER + """
template <typename T>
struct wrap {
  T v;
  wrap(T x) : v(x) {}
  constexpr operator T() const { return v * T(2); }
  explicit operator int() const { return 7; }
};
kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  wrap<float> w(o[i]);
  float f = w;
  int n = int(w);
  o[i] = f + float(n) + sqrt(float(w) * float(w));
}
"""


def test_conversion_operators(run, rng):
    n = 256
    x = floats(rng, n, -3, 3)
    r = run(CONV_SRC, {"o": x}, ["o"], grid=n, threads=64)
    xd = x.astype(np.float64)
    close(r["o"], 2 * xd + 7 + np.abs(2 * xd), rtol=1e-5, atol=1e-5, what="operator T() and operator int()")
