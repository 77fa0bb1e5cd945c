// Two SIMD groups swap values through threadgroup memory with no barrier between the
// store and the load: each store races with the other group's load. Checked mode runs the
// statement's stores for every thread, then the loads (one schedule Metal allows), so both
// races are found at the loads, each report naming the store's line.
// run: --threadgroups 2 --threads 64 data=rand:float32:128 out=zeros:128
#include <metal_stdlib>
using namespace metal;

kernel void swap_halves(device const float *data [[buffer(0)]],
                        device float *out [[buffer(1)]],
                        uint gid [[thread_position_in_grid]],
                        uint lid [[thread_position_in_threadgroup]])
{
    threadgroup float tile[64];
    tile[lid] = 0.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    tile[lid] = data[gid];
    out[gid] = tile[lid ^ 32u]; // expect: data-race
}
