#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int i = 0;
  float s = 0.0f;
  do { s += 1.0f; i++; } while (i < 4);
  out[tid] = s;
}
