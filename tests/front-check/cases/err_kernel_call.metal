#include <metal_stdlib>
using namespace metal;
kernel void a(device float *out [[buffer(0)]]) { out[0] = 1.0f; }
kernel void b(device float *out [[buffer(0)]]) { a(out); }
