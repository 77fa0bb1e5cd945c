#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int i = 0;
  float s = 0.0f;
  while (true) {
    i++;
    if (i == 2) continue;
    if (i > 5) break;
    s += float(i);
  }
  out[tid] = s;
}
