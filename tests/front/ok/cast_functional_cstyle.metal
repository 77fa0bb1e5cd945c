#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int i = int(out[tid]);
  float f = (float)i;
  half h = half(f);
  out[tid] = float(h) + f;
}
