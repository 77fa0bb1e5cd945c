#include <metal_stdlib>
using namespace metal;
kernel void k(device float4 *v [[buffer(0)]], device packed_float3 *p [[buffer(1)]],
              uint3 tid [[thread_position_in_grid]]) {
    float4 a = float4(1.0f, 2.0f, 3.0f, 4.0f);
    float2 b = a.xy + a.zw;
    a.xyzw = a.wzyx;
    a.rgb = float3(b, 0.0f);
    half4 h = half4(a);
    metal::float4 m = metal::float4(0.0f);
    vec<float, 4> w = vec<float, 4>(a);
    packed_float3 q = p[tid.x];
    v[tid.x] = a * 2.0f + float4(q, 1.0f).xxyy;
    float4x4 mat;
    bool2 bb = bool2(true, false);
    uchar4 c = uchar4(1, 2, 3, 4);
}
