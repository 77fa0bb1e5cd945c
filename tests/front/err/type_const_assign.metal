#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  const float c = 1.0f;
  c = 2.0f;
  out[tid] = c;
}
