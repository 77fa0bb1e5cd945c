#include <metal_stdlib>
using namespace metal;
// kernel-scope threadgroup variables, also in a nested block
kernel void k(device float *out [[buffer(0)]], uint lid [[thread_position_in_threadgroup]]) {
    threadgroup float tile[32];
    threadgroup int flag;
    {
        threadgroup float2 pairs[4][2];
        pairs[0][1] = float2(1.0f);
        tile[lid] = pairs[0][1].x;
    }
    if (lid == 0) flag = 1;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[lid] = tile[31 - lid] + float(flag);
}
