#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int i = 0;
  int a = i++;
  int b = ++i;
  int c = i--;
  int d = --i;
  out[tid] = float(a + b + c + d);
}
