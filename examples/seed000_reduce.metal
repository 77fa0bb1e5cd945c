// seed 000: a two-level sum. reduce_threadgroup leaves one partial sum per threadgroup
// (SIMD-group sums, then the first SIMD group sums those); reduce_final sums the partials
// in one threadgroup.
#include <metal_stdlib>
using namespace metal;

kernel void reduce_threadgroup(device const float *A [[buffer(0)]],
                               device float *PartialOut [[buffer(1)]],
                               uint tid [[thread_position_in_grid]],
                               uint local_id [[thread_position_in_threadgroup]],
                               uint simd_idx [[thread_index_in_simdgroup]],
                               uint simd_gid [[simdgroup_index_in_threadgroup]],
                               uint tg_size [[threads_per_threadgroup]],
                               uint group_id [[threadgroup_position_in_grid]]) {
    threadgroup float scratch[32];
    float val = A[tid];
    float simd_total = simd_sum(val);
    if (simd_idx == 0) {
        scratch[simd_gid] = simd_total;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint n_simd_groups = tg_size / 32;
    if (local_id < n_simd_groups) {
        float sub = scratch[local_id];
        float tg_sum = simd_sum(sub);
        if (local_id == 0) {
            PartialOut[group_id] = tg_sum;
        }
    }
}

kernel void reduce_final(device const float *Partial [[buffer(0)]],
                         device float *Result [[buffer(1)]],
                         constant uint &count [[buffer(2)]],
                         uint local_id [[thread_position_in_threadgroup]],
                         uint simd_idx [[thread_index_in_simdgroup]],
                         uint simd_gid [[simdgroup_index_in_threadgroup]],
                         uint tg_size [[threads_per_threadgroup]]) {
    threadgroup float scratch[32];
    float val = local_id < count ? Partial[local_id] : 0.0f;
    float simd_total = simd_sum(val);
    if (simd_idx == 0) {
        scratch[simd_gid] = simd_total;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (local_id == 0) {
        float total = 0.0f;
        for (uint i = 0; i < (tg_size + 31) / 32; ++i) {
            total += scratch[i];
        }
        Result[0] = total;
    }
}
