// seed 004, Pattern 5: the two-stage reduction, wrapped in a kernel
#include <metal_stdlib>
using namespace metal;

kernel void two_stage_reduce(device const float* data [[buffer(0)]],
                             device float* out [[buffer(1)]],
                             uint tid [[thread_position_in_grid]],
                             uint lid [[thread_position_in_threadgroup]],
                             uint simd_lane [[thread_index_in_simdgroup]],
                             uint simd_id [[simdgroup_index_in_threadgroup]]) {
float my_value = data[tid];
// Assume threadgroup size = 128 (4 SIMD groups)
threadgroup float partials[4];
// Stage 1: Each SIMD group reduces its 32 values
float local_sum = simd_sum(my_value);
// One thread per SIMD group writes to shared memory
if (simd_lane == 0) {
partials[simd_id] = local_sum;
}
threadgroup_barrier(mem_flags::mem_threadgroup);
// Stage 2: First SIMD group reduces the partial sums
float total;
if (simd_id == 0 && simd_lane < 4) {
total = simd_sum(partials[simd_lane]);
}
// Broadcast to all threads if needed
threadgroup float shared_total;
if (lid == 0) {
shared_total = total;
}
threadgroup_barrier(mem_flags::mem_threadgroup);
total = shared_total;
out[tid] = total;
}
