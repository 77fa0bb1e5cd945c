#include <metal_stdlib>
using namespace metal;
// one run reports every independent error
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    out[tid] = a1;
    out[tid] = simd_sum();
    float3 v;
    v.q = 1.0f;
    out[tid] = b2 + c3;
}
kernel void k2(device float *out [[buffer(0)]]) {
    out[0] = d4;
}
