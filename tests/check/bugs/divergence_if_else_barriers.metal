// Even and odd threads wait at two different barriers.
// run: --threadgroups 1 --threads 64 data=rand:float32:64
#include <metal_stdlib>
using namespace metal;

kernel void split(device float *data [[buffer(0)]],
                  uint lid [[thread_position_in_threadgroup]])
{
    threadgroup float tile[64];
    tile[lid] = data[lid];
    if (lid % 2 == 0) {
        threadgroup_barrier(mem_flags::mem_threadgroup); // expect: barrier-divergence
        data[lid] = tile[lid + 1];
    } else {
        threadgroup_barrier(mem_flags::mem_threadgroup); // expect: barrier-divergence
        data[lid] = tile[lid - 1];
    }
}
