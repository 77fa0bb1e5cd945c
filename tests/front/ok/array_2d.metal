#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int m[2][3] = {{1, 2, 3}, {4, 5, 6}};
  out[tid] = float(m[1][2]);
}
