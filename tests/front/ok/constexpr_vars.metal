#include <metal_stdlib>
using namespace metal;
constexpr int TILE = 4;
constexpr float HALF_F = 0.5f;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float a[TILE * 2];
  a[0] = HALF_F;
  out[tid] = a[0] * float(TILE);
}
