// Runs of lanes that start inside a SIMD group: threads 3-7 read entries 3-7, and threads
// 40-47 entries 8-15, all written before the barrier by other threads; entries 0-2 are never
// written and never read. A tree's `if (lid < s)` levels below 32 are such runs too.
// run: --threadgroups 2 --threads 64 data=rand:float32:128 out=zeros:128
#include <metal_stdlib>
using namespace metal;

kernel void partial_runs(device const float *data [[buffer(0)]],
                         device float *out [[buffer(1)]],
                         uint lid [[thread_position_in_threadgroup]],
                         uint gid [[thread_position_in_grid]])
{
    threadgroup float tile[64];
    if (lid >= 3)
        tile[63 - lid + 3] = data[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float v = 0.0f;
    if (lid >= 3 && lid < 8)
        v = tile[lid];
    if (lid >= 40 && lid < 48)
        v += tile[lid - 32];
    for (uint s = 16; s > 0; s /= 2) {
        threadgroup_barrier(mem_flags::mem_threadgroup);
        if (lid < s)
            tile[lid + 3] = v + tile[lid + s + 3];
    }
    out[gid] = v;
}
