// Seed 000's reduce_final as its DSL wrote it: a serial sum of 8 SIMD-group partials.
// Run with 128 threads per threadgroup only 4 SIMD groups exist, so scratch[4..7] were
// never written by this threadgroup.
// run: --threadgroups 1 --threads 128 Partial=rand:float32:128 Result=zeros:1
#include <metal_stdlib>
using namespace metal;

kernel void reduce_final(device const float *Partial [[buffer(0)]],
                         device float *Result [[buffer(1)]],
                         uint local_id [[thread_position_in_threadgroup]],
                         uint simd_idx [[thread_index_in_simdgroup]],
                         uint simd_gid [[simdgroup_index_in_threadgroup]]) {
    threadgroup float scratch[32];
    float val = Partial[local_id];
    float simd_total = simd_sum(val);
    if (simd_idx == 0) {
        scratch[simd_gid] = simd_total;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (local_id == 0) {
        float final_sum = 0.0f;
        for (uint i = 0; i < 8; i++) {
            final_sum = final_sum + scratch[i]; // expect: uninitialized-read
        }
        Result[0] = final_sum;
    }
}
