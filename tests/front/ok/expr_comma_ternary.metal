#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int a = 1, b = 2;
  int c = (a++, b++, a + b);
  out[tid] = c > 4 ? 1.0f : -1.0f;
}
