// Threads 3-63 fill the tile; after the barrier threads 0-7, a run of eight lanes that is
// only part of the first SIMD group, read it back: lanes 0-2 read entries no thread wrote.
// run: --threadgroups 2 --threads 64 data=rand:float32:128 out=zeros:128
#include <metal_stdlib>
using namespace metal;

kernel void partial_run(device const float *data [[buffer(0)]],
                        device float *out [[buffer(1)]],
                        uint lid [[thread_position_in_threadgroup]],
                        uint gid [[thread_position_in_grid]])
{
    threadgroup float tile[64];
    if (lid >= 3)
        tile[lid] = data[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid < 8)
        out[gid] = tile[lid]; // expect: uninitialized-read
}
