// A barrier under `if (lid < 32)` in a threadgroup of 64: the second SIMD group never
// reaches it.
// run: --threadgroups 2 --threads 64 data=rand:float32:128
#include <metal_stdlib>
using namespace metal;

kernel void half_barrier(device float *data [[buffer(0)]],
                         uint gid [[thread_position_in_grid]],
                         uint lid [[thread_position_in_threadgroup]])
{
    threadgroup float tile[64];
    if (lid < 32) {
        tile[lid] = data[gid];
        threadgroup_barrier(mem_flags::mem_threadgroup); // expect: barrier-divergence
        data[gid] = tile[31 - lid];
    }
}
