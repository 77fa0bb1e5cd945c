#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  uint3 u = uint3(tid, tid + 1, 2u);
  u += 1u;
  out[tid] = float(u.y);
}
