#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float s = 0.0f;
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; j += 1)
      s += float(i * j);
  out[tid] = s;
}
