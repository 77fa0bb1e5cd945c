// ARGS: -DWIDTH=8 -DUSE_FAST
#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
#ifdef USE_FAST
  out[tid] = float(WIDTH) * 2.0f;
#endif
}
