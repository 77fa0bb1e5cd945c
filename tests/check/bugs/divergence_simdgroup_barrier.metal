// A simdgroup_barrier that only the first eight lanes of each SIMD group reach.
// run: --threadgroups 1 --threads 64 data=rand:float32:64
#include <metal_stdlib>
using namespace metal;

kernel void partial_simd_barrier(device float *data [[buffer(0)]],
                                 uint lid [[thread_position_in_threadgroup]],
                                 uint lane [[thread_index_in_simdgroup]])
{
    float v = data[lid];
    if (lane < 8) {
        simdgroup_barrier(mem_flags::mem_none); // expect: barrier-divergence
        v *= 2.0f;
    }
    data[lid] = v;
}
