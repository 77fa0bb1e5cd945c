// A threadgroup pointer to this thread's slot, then an offset of 32 slots: off the end of
// the 64-entry tile for the upper half of the threadgroup.
// run: --threadgroups 1 --threads 64 data=rand:float32:64 out=zeros:64
#include <metal_stdlib>
using namespace metal;

kernel void ahead(device const float *data [[buffer(0)]],
                  device float *out [[buffer(1)]],
                  uint lid [[thread_position_in_threadgroup]])
{
    threadgroup float tile[64];
    threadgroup float other[64];
    tile[lid] = data[lid];
    other[lid] = 0.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    threadgroup float *mine = &tile[lid];
    out[lid] = mine[32] + other[lid]; // expect: out-of-bounds
}
