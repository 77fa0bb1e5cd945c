#include <metal_stdlib>
using namespace metal;
void bump(thread float& x) { x += 1.0f; }
void store(device float& d, float v) { d = v; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float v = 1.0f;
  bump(v);
  store(out[tid], v);
}
