// A dispatch by threads whose last threadgroup is partial (48 threads: a full SIMD group
// and one of 16 lanes); every real thread reaches every barrier.
// run: --grid 176 --threads 64 data=rand:float32:176 out=zeros:176
#include <metal_stdlib>
using namespace metal;

kernel void edge_tiles(device const float *data [[buffer(0)]],
                       device float *out [[buffer(1)]],
                       uint gid [[thread_position_in_grid]],
                       uint lid [[thread_position_in_threadgroup]],
                       uint lsize [[threads_per_threadgroup]])
{
    threadgroup float tile[64];
    tile[lid] = data[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float s = simd_sum(tile[lsize - 1 - lid]);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    tile[lid] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[gid] = tile[(lid + 1) % lsize];
}
