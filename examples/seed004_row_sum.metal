// seed004_row_sum.metal — seed 004's "Pattern C: Stride Loop (One Threadgroup Per
// Row)", with its "Reduce within threadgroup..." completed by the two-stage reduction:
// a threadgroup of 256 threads strides through one row, each SIMD group sums its
// lanes, and SIMD group 0 sums the 8 partial sums.
//
//   enigma run examples/seed004_row_sum.metal --threadgroups ROWS --threads 256 \
//       matrix=@m.npy sums=zeros:ROWS cols=COLS --print sums
#include <metal_stdlib>
using namespace metal;

kernel void row_sum(
    device const float* matrix [[buffer(0)]],
    device float* sums [[buffer(1)]],
    constant uint& cols [[buffer(2)]],
    uint gid [[threadgroup_position_in_grid]],
    uint lid [[thread_position_in_threadgroup]],
    uint simd_lane [[thread_index_in_simdgroup]],
    uint simd_id [[simdgroup_index_in_threadgroup]]
) {
    threadgroup float partials[8];
    uint row = gid;
    float sum = 0.0f;
    // Each thread strides through the row
    for (uint col = lid; col < cols; col += 256) {
        sum += matrix[row * cols + col];
    }
    // Reduce within threadgroup: SIMD groups first, then their 8 partial sums
    sum = simd_sum(sum);
    if (simd_lane == 0) {
        partials[simd_id] = sum;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (simd_id == 0) {
        float partial = 0.0f;
        if (simd_lane < 8) {
            partial = partials[simd_lane];
        }
        sum = simd_sum(partial);
    }
    if (lid == 0) {
        sums[row] = sum;
    }
}
