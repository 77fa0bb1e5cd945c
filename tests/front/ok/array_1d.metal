#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float a[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  out[tid] = a[tid % 4];
}
