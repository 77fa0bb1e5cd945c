#include <metal_stdlib>
using namespace metal;
template <typename T>
T square(T x) { return x * x; }
template <typename T, int N = 4>
struct Buf { T data[N]; T get(int i) const { return data[i]; } };
template <class T, uint N>
inline vec<T, N> splat(T v) { return vec<T, N>(v); }
template <typename T>
using Ptr = device T *;
kernel void k(device float *p [[buffer(0)]]) {
    float a = square(p[0]) + square<float>(p[1]);
    Buf<float, 2> b;
    Buf<int> bi;
    float4 s = splat<float, 4>(a);
    vec<vec<float, 2>, 2> nested;
    Buf<Buf<int, 2>, 3> bb;
    bool lt = a < p[1] > 0;
    float mx = numeric_limits<float>::max();
    p[2] = b.get(0) + s.x + mx;
}
