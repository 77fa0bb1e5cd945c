#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float x = out[tid];
  out[tid] = abs(x) + fabs(x) + min(x, 1.0f) + max(x, 0.0f) + clamp(x, 0.0f, 1.0f) + mix(x, 1.0f, 0.5f) + step(0.5f, x) + smoothstep(0.0f, 1.0f, x) + sign(x) + saturate(x);
}
