#include <metal_stdlib>
using namespace metal;
kernel void k(device uint* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  uint x = 4294967295u;
  x += 1u;
  out[tid] = x + (0u - 1u);
}
