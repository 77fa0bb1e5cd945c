// A grid-stride simd_sum reduction: each threadgroup writes one partial sum.
// The bandwidth benchmark of bench/cpu_bench.c (and of the CUDA bench).
#include <metal_stdlib>
using namespace metal;

kernel void reduce_simd(device const float *in [[buffer(0)]],
                        device float *partials [[buffer(1)]],
                        constant uint &n [[buffer(2)]],
                        uint gid [[thread_position_in_grid]],
                        uint grid_size [[threads_per_grid]],
                        uint group [[threadgroup_position_in_grid]],
                        uint simd_lane [[thread_index_in_simdgroup]],
                        uint simd_id [[simdgroup_index_in_threadgroup]],
                        uint simd_groups [[simdgroups_per_threadgroup]])
{
    threadgroup float simd_partials[32];
    float acc = 0.0f;
    for (uint i = gid; i < n; i += grid_size)
        acc += in[i];
    acc = simd_sum(acc);
    if (simd_lane == 0)
        simd_partials[simd_id] = acc;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (simd_id == 0) {
        float v = simd_lane < simd_groups ? simd_partials[simd_lane] : 0.0f;
        v = simd_sum(v);
        if (simd_lane == 0)
            partials[group] = v;
    }
}
