#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float v = out[tid];
  if (v < 0.0f) v = -v;
  else if (v > 8.0f) v = 8.0f;
  else v = v * 0.5f;
  out[tid] = v;
}
