#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  int x = 5;
  x += 2; x -= 1; x *= 3; x /= 2; x %= 7; x <<= 2; x >>= 1; x &= 12; x |= 1; x ^= 3;
  out[tid] = float(x);
}
