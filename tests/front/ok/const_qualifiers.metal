#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], const device float* in [[buffer(1)]], uint tid [[thread_position_in_grid]]) {
  const float two = 2.0f;
  out[tid] = in[tid] * two;
}
