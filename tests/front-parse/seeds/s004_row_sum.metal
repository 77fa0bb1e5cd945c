// seed 004, Pattern C: stride loop, one threadgroup per row
#include <metal_stdlib>
using namespace metal;

kernel void row_sum(
device const float* matrix [[buffer(0)]],
device float* sums [[buffer(1)]],
constant uint& cols [[buffer(2)]],
uint gid [[threadgroup_position_in_grid]],
uint lid [[thread_position_in_threadgroup]]
) {
uint row = gid;
float sum = 0.0f;
// Each thread strides through the row
for (uint col = lid; col < cols; col += 256) {
sum += matrix[row * cols + col];
}
// Reduce within threadgroup...
sum = simd_sum(sum);
// ... (two-stage reduction as before)
if (lid == 0) {
sums[row] = sum;
}
}
