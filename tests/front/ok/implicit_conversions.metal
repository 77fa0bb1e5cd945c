#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int i = 3;
  float f = i;
  half h = 2.0h;
  float g = h + f;
  uint u = i;
  out[tid] = g + u;
}
