// Warp-synchronous code, correct by Metal's SIMD-group rules: lane 0 of each SIMD group
// writes a threadgroup value that the other lanes of the same SIMD group read in a later
// statement, with no barrier; a broadcast through threadgroup memory per SIMD group.
// run: --threadgroups 3 --threads 96 data=rand:float32:288 out=zeros:288
#include <metal_stdlib>
using namespace metal;

kernel void leader_value(device const float *data [[buffer(0)]],
                         device float *out [[buffer(1)]],
                         uint gid [[thread_position_in_grid]],
                         uint lane [[thread_index_in_simdgroup]],
                         uint sg [[simdgroup_index_in_threadgroup]])
{
    threadgroup float leader[4];
    threadgroup float lanes[96];
    float v = data[gid];
    if (lane == 0)
        leader[sg] = v;
    lanes[sg * 32 + lane] = v * 2.0f;
    simdgroup_barrier(mem_flags::mem_threadgroup);
    float neighbour = lanes[sg * 32 + ((lane + 1) & 31u)];
    out[gid] = v - leader[sg] + neighbour;
}
