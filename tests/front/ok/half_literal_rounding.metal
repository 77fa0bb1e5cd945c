#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[0] = float(M_PI_H);
  out[1] = float(0.1h);
  half h = 2049.0h;
  out[2] = float(h);
}
