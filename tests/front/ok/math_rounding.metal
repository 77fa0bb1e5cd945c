#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float x = out[tid];
  float ip;
  out[tid] = floor(x) + ceil(x) + round(x) + rint(x) + trunc(x) + fract(x) + fmod(x, 2.0f) + modf(x, ip) + ip;
}
