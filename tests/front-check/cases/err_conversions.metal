#include <metal_stdlib>
using namespace metal;
kernel void k(device float *p [[buffer(0)]], constant float *c [[buffer(1)]], uint tid [[thread_position_in_grid]]) {
    float x = p;
    float4 v4 = float4(1.0f);
    float3 v3 = v4;
    int4 i4 = v4;
    float4 w = v4 + int4(1);
    int4 h = int4(1) * x;
    device float *q = c;
    simd_vote vote = simd_ballot(true);
    ulong bits = vote;
}
