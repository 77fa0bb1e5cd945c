#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], ushort2 p [[thread_position_in_grid]], ushort2 g [[threads_per_grid]]) {
  out[p.y * g.x + p.x] = 1.0f;
}
