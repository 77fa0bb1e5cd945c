#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float x = out[tid];
  out[tid] = simd_prefix_inclusive_sum(x) + simd_prefix_exclusive_sum(x) + simd_prefix_inclusive_product(x) + simd_prefix_exclusive_product(x);
}
