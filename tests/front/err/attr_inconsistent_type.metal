#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]], uint p [[thread_position_in_grid]], ushort n [[threads_per_grid]]) {
  a[p] = float(n);
}
