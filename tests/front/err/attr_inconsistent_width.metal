#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]], uint2 p [[thread_position_in_grid]], uint3 n [[threads_per_grid]]) {
  a[p.x] = float(n.x);
}
