#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]], float scale [[buffer(1)]], uint t [[thread_position_in_grid]]) {
  a[t] = scale;
}
