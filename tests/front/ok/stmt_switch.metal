#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int r = 0;
  switch (tid % 4) {
  case 0: r = 10; break;
  case 1:
  case 2: r = 20; break;
  default: r = 30;
  }
  out[tid] = float(r);
}
