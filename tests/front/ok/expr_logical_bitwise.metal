#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  uint x = tid;
  bool p = (x & 1u) != 0u && !(x > 10u) || x == 3u;
  uint y = ~x ^ (x << 2) | (x >> 1);
  out[tid] = p ? float(y) : 0.0f;
}
