#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float x = out[tid];
  out[tid] = sin(x) + cos(x) + tan(x) + asin(x) + acos(x) + atan(x) + atan2(x, 1.0f) + sinh(x) + cosh(x) + tanh(x);
}
