#include <metal_stdlib>
using namespace metal;
// one instantiation per distinct argument set, named f<T>
template <typename T> T twice(T x) { return x + x; }
template <typename T, int N> T hsum(vec<T, N> v) {
    T s = 0;
    for (int i = 0; i < N; ++i) s += v[i];
    return s;
}
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    float a = twice(1.5f);
    int b = twice(2);
    float c = twice(0.5f);      // reuses twice<float>
    float d = hsum(float4(1.0f)) + float(hsum(uint2(1, 2)));
    out[tid] = a + float(b) + c + d;
}
