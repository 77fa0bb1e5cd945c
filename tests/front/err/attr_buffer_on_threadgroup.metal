#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], threadgroup float* a [[buffer(1)]]) {
  out[0] = a[0];
}
