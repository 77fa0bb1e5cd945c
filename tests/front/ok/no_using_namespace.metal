#include <metal_stdlib>
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = metal::max(out[tid], 0.0f);
}
