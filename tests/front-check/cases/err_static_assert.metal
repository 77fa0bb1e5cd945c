#include <metal_stdlib>
using namespace metal;
static_assert(sizeof(float3) == 12, "float3 is 16 bytes in MSL");
static_assert(1 + 1 == 3);
kernel void k(device float *out [[buffer(0)]]) { out[0] = 0.0f; }
