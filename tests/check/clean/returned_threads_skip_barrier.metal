// Threads past the end return before the barriers; those that stay all reach them.
// Returned threads are exempt (Apple silicon), so this is correct.
// run: --grid 100 --threads 64 data=rand:float32:100 out=zeros:100 count=100
#include <metal_stdlib>
using namespace metal;

kernel void guarded_reverse(device const float *data [[buffer(0)]],
                            device float *out [[buffer(1)]],
                            constant uint &count [[buffer(2)]],
                            uint gid [[thread_position_in_grid]],
                            uint lid [[thread_position_in_threadgroup]],
                            uint lsize [[threads_per_threadgroup]])
{
    threadgroup float tile[64];
    if (gid >= count)
        return;
    tile[lid] = data[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[gid] = tile[lsize - 1 - lid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    tile[lid] = 0.0f;
}
