#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  half4 h = half4(out[tid]);
  half4 r = sqrt(h) + sin(h) + max(h, half4(0.0h)) + clamp(h, 0.0h, 1.0h);
  out[tid] = float(r.x);
}
