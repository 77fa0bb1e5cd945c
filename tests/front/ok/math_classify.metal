#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float x = out[tid];
  int e;
  bool c = isnan(x) || isinf(x) || !isfinite(x) || signbit(x);
  float y = select(x, copysign(1.0f, x), c) + ldexp(x, 2) + frexp(x, e);
  out[tid] = y + float(e);
}
