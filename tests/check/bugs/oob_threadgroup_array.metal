// A threadgroup array sized for 32 threads, used by a threadgroup of 64.
// run: --threadgroups 2 --threads 64 data=rand:float32:128
#include <metal_stdlib>
using namespace metal;

kernel void reverse_tile(device float *data [[buffer(0)]],
                         uint gid [[thread_position_in_grid]],
                         uint lid [[thread_position_in_threadgroup]],
                         uint lsize [[threads_per_threadgroup]])
{
    threadgroup float tile[32];
    threadgroup float spare[64];
    tile[lid] = data[gid]; // expect: out-of-bounds
    spare[lid] = 0.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    data[gid] = tile[(lsize - 1 - lid) % 32] + spare[lid];
}
