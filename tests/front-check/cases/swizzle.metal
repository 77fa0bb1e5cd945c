#include <metal_stdlib>
using namespace metal;
kernel void k(device float4 *v [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    float4 a = v[tid];
    a.xy = a.yx;          // write through a distinct swizzle
    a.b = 1.0f;           // rgba spelling
    float2 r = a.ww;      // repeated lanes read
    float4 s = a.wzyx;
    v[tid] = s + float4(r, r);
    v[tid].z = 0.0f;
}
