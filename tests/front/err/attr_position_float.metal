#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]], float t [[thread_position_in_grid]]) {
  a[0] = t;
}
