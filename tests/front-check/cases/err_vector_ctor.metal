#include <metal_stdlib>
using namespace metal;
kernel void k(device float4 *out [[buffer(0)]]) {
    float4 a = float4(1.0f, 2.0f, 3.0f);
    float4 b = float4(float2(1), float3(1));
    float2 c = float2(float4(1));
    out[0] = a + b;
}
