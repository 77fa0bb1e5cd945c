#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float acc[4];
  for (int i = 0; i < 4; i++) acc[i] = float(i);
  float s = 0.0f;
  for (int i = 0; i < 4; i++) s += acc[i];
  out[tid] = s;
}
