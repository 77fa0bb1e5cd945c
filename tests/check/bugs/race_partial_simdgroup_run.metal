// After the barrier every thread reads its own entry; then lanes 0-7 of the second SIMD
// group (threads 32-39, a run that is only part of it) overwrite entries 0-7, which the
// first SIMD group read in the same phase.
// run: --threadgroups 2 --threads 64 data=rand:float32:128 out=zeros:128
#include <metal_stdlib>
using namespace metal;

kernel void partial_race(device const float *data [[buffer(0)]],
                         device float *out [[buffer(1)]],
                         uint lid [[thread_position_in_threadgroup]],
                         uint gid [[thread_position_in_grid]])
{
    threadgroup float tile[64];
    tile[lid] = data[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float v = tile[lid];
    if (lid >= 32 && lid < 40)
        tile[lid - 32] = v; // expect: data-race
    out[gid] = v;
}
