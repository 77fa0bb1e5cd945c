#include <metal_stdlib>
using namespace metal;
kernel void k(device half* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  half a = out[tid];
  half b = a * 2.0h + 1.0h;
  out[tid] = b / half(3);
}
