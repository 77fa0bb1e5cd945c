#include <metal_stdlib>
using namespace metal;
kernel void k(device float4 *out [[buffer(0)]], device int4 *iout [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    float2 a = float2(1.0f, 2.0f);
    float3 b = float3(a, 3);        // a vector and a scalar
    float4 c = float4(a.x, b.yz, 4); // scalar, swizzle, int
    float4 d = float4(2.5f);        // splat
    int4 e = int4(c);               // conversion between vector types
    half4 h = half4(d);
    out[tid] = c + d + float4(h);
    iout[tid] = e;
}
