#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]], uint t [[thread_position_in_universe]]) {
  a[t] = 1.0f;
}
