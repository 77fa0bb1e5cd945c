#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float2 a = float2(1.0f, 2.0f);
  float2 b = tid > 0 ? a : a.yx;
  out[tid] = b.x;
}
