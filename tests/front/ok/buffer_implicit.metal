#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a, device float* b, constant uint& n, uint tid [[thread_position_in_grid]]) {
  if (tid < n) a[tid] = b[tid];
}
