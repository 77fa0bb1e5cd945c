// Only the even entries of the tile are written; odd threads read their own, unwritten
// entry after the barrier.
// run: --threadgroups 1 --threads 64 data=rand:float32:64 out=zeros:64
#include <metal_stdlib>
using namespace metal;

kernel void evens(device const float *data [[buffer(0)]],
                  device float *out [[buffer(1)]],
                  uint lid [[thread_position_in_threadgroup]])
{
    threadgroup float tile[64];
    if (lid % 2 == 0)
        tile[lid] = data[lid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[lid] = tile[lid]; // expect: uninitialized-read
}
