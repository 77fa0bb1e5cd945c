#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  const float lut[3] = {0.5f, 1.0f, 2.0f};
  out[tid] = lut[tid % 3];
}
