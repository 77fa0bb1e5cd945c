// Accumulates into a threadgroup array that nobody cleared first.
// run: --threadgroups 2 --threads 64 data=rand:float32:128 out=zeros:128
#include <metal_stdlib>
using namespace metal;

kernel void accumulate(device const float *data [[buffer(0)]],
                       device float *out [[buffer(1)]],
                       uint gid [[thread_position_in_grid]],
                       uint lid [[thread_position_in_threadgroup]])
{
    threadgroup float acc[64];
    acc[lid] += data[gid]; // expect: uninitialized-read
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[gid] = acc[lid];
}
