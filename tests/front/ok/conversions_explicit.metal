#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  uint u = uint(out[tid]);
  half h = half(u);
  bfloat bf = bfloat(out[tid]);
  short s = short(h);
  out[tid] = float(s) + float(bf) + float(ulong(u));
}
