#include <metal_stdlib>
using namespace metal;
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
    p.b[0] = 1.0f;
    p.b[1] = 2.0f;
    Pair<float> q = p.scaled(3.0f);
    Box<int> bx;
    bx.inner.a = int(i);
    bx.inner.b[0] = 1; bx.inner.b[1] = 2; bx.inner.b[2] = 3;
    bx.extra = 4;
    o[i] = q.sum();
    io[i] = bx.inner.sum() + bx.extra;
}
