// A loop whose trip count depends on the thread, with a barrier inside: threads that have
// left the loop (still running, not returned) skip the barrier the others wait at.
// run: --threadgroups 1 --threads 64 data=rand:float32:64
#include <metal_stdlib>
using namespace metal;

kernel void uneven(device float *data [[buffer(0)]],
                   uint lid [[thread_position_in_threadgroup]])
{
    float v = data[lid];
    for (uint i = 0; i < lid % 4; i++) {
        threadgroup_barrier(mem_flags::mem_threadgroup); // expect: barrier-divergence
        v = v * 0.5f + 1.0f;
    }
    data[lid] = v;
}
