#include <metal_stdlib>
using namespace metal;
float g(float x) { return x; }
float g(half x) { return float(x); }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = g(1);
}
