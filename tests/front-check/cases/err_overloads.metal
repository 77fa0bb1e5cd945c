#include <metal_stdlib>
using namespace metal;
float amb(float x, int y) { return x; }
float amb(int x, float y) { return y; }
float one(float4 v) { return v.x; }
template <typename T> T same(T a, T b) { return a; }
kernel void k(device float *out [[buffer(0)]]) {
    out[0] = amb(1, 2);
    out[1] = one(1, 2);
    out[2] = one(int2(1));
    out[3] = same(1, 2.0f);
}
