// A tiled loop that loads the next tile without waiting for the others to finish reading
// the current one (the second barrier of the loop is missing).
// run: --threadgroups 1 --threads 64 data=rand:float32:256 out=zeros:64
#include <metal_stdlib>
using namespace metal;

kernel void tiled_sum(device const float *data [[buffer(0)]],
                      device float *out [[buffer(1)]],
                      uint lid [[thread_position_in_threadgroup]])
{
    threadgroup float tile[64];
    float acc = 0.0f;
    for (uint t = 0; t < 4; t++) {
        tile[lid] = data[t * 64 + lid]; // expect: data-race
        threadgroup_barrier(mem_flags::mem_threadgroup);
        acc += tile[63 - lid];
    }
    out[lid] = acc;
}
