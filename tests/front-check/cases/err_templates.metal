#include <metal_stdlib>
using namespace metal;
template <typename T> T id(T x) { return x; }
template <int N> int times() { return N; }
kernel void k(device float *out [[buffer(0)]]) {
    out[0] = id<float, int>(1.0f);
    out[1] = float(times<1.5f>());
    out[2] = float(times());
}
