// seed 004, SIMD patterns 1-4, each fragment wrapped into a kernel
#include <metal_stdlib>
using namespace metal;

float compute_something_expensive() { return 42.0f; }

// Pattern 1: SIMD reduction
kernel void simd_reduction(device const float* data [[buffer(0)]],
                           device float* out [[buffer(1)]],
                           uint tid [[thread_position_in_grid]]) {
float my_value = data[tid];
float total = simd_sum(my_value);
// All 32 lanes now hold the same total
out[tid] = total;
}

// Pattern 2: SIMD broadcast
kernel void simd_broadcast_pattern(device float* out [[buffer(0)]],
                                   constant ushort& source_lane [[buffer(1)]],
                                   uint tid [[thread_position_in_grid]],
                                   uint simd_lane [[thread_index_in_simdgroup]]) {
float value;
if (simd_lane == 0) {
value = compute_something_expensive();
}
// Broadcast lane 0's value to all lanes
value = simd_broadcast_first(value);
// Or from a specific lane:
value = simd_shuffle(value, source_lane);
out[tid] = value;
}

// Pattern 3: SIMD prefix sum (inclusive scan)
kernel void simd_scan(device const float* data [[buffer(0)]],
                      device float* out [[buffer(1)]],
                      uint tid [[thread_position_in_grid]]) {
float val = data[tid];
float prefix = simd_prefix_inclusive_sum(val);
out[tid] = prefix;
}

// Pattern 4: SIMD shuffle for data reuse
kernel void simd_stencil(device const float* data [[buffer(0)]],
                         device float* out [[buffer(1)]],
                         constant uint& base [[buffer(2)]],
                         uint tid [[thread_position_in_grid]],
                         uint simd_lane [[thread_index_in_simdgroup]]) {
// Each lane loads one element
float my_val = data[base + simd_lane];
// Now lane i can access neighboring values without memory loads:
float left = simd_shuffle_up(my_val, 1); // lane i gets lane (i-1)'s value
float right = simd_shuffle_down(my_val, 1); // lane i gets lane (i+1)'s value
// Stencil computation (e.g., 1D convolution with kernel [0.25, 0.5, 0.25])
float result = 0.25f * left + 0.5f * my_val + 0.25f * right;
out[tid] = result;
}
