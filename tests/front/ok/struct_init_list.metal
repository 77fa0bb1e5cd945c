#include <metal_stdlib>
using namespace metal;
struct Q { float x; float y; };
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  Q q = {1.0f, 2.0f};
  out[tid] = q.x + q.y;
}
