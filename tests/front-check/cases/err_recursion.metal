#include <metal_stdlib>
using namespace metal;
float fact(float x) { return x <= 1.0f ? 1.0f : x * fact(x - 1.0f); }
kernel void k(device float *out [[buffer(0)]]) { out[0] = fact(4.0f); }
