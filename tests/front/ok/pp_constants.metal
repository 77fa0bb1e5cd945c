#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[0] = M_PI_F;
  out[1] = INFINITY;
  out[2] = FLT_MAX;
  out[3] = float(INT_MAX);
  out[4] = NAN;
  out[5] = float(M_PI_H);
  out[6] = MAXFLOAT;
}
