#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  bool b = simd_sum(tid > 3);
  out[tid] = b ? 1.0f : 0.0f;
}
