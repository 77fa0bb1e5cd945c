// Every threadgroup writes the same 64 output elements: writes of different threadgroups
// to one location race, whatever barriers each group has.
// run: --threadgroups 3 --threads 64 data=rand:float32:192 out=zeros:64
#include <metal_stdlib>
using namespace metal;

kernel void fold(device const float *data [[buffer(0)]],
                 device float *out [[buffer(1)]],
                 uint gid [[thread_position_in_grid]],
                 uint lid [[thread_position_in_threadgroup]])
{
    threadgroup_barrier(mem_flags::mem_device);
    out[lid] = data[gid] * 2.0f; // expect: data-race
}
