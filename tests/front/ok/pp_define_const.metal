#include <metal_stdlib>
using namespace metal;
#define N 16
#define SCALE 2.5f
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float a[N];
  a[tid % N] = SCALE;
  out[tid] = a[tid % N];
}
