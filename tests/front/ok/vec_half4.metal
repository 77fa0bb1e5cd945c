#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  half4 h = half4(1.0h);
  h = h * h;
  out[tid] = float(h.x);
}
