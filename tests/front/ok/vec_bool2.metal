#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  bool2 b = bool2(true, tid > 3);
  if (all(b)) out[tid] = 1.0f;
}
