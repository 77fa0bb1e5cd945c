// seed 001: Sarek's tree reduction in shared memory; each superstep ends in a barrier.
#include <metal_stdlib>
using namespace metal;

kernel void reduce_sum(device const float *input [[buffer(0)]],
                       device float *output [[buffer(1)]],
                       constant int &n [[buffer(2)]],
                       uint tid [[thread_position_in_threadgroup]],
                       uint gid [[thread_position_in_grid]],
                       uint block [[threadgroup_position_in_grid]]) {
    threadgroup float sdata[256];
    sdata[tid] = int(gid) < n ? input[gid] : 0.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    #pragma unroll
    for (uint s = 128; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (tid == 0) {
        output[block] = sdata[0];
    }
}
