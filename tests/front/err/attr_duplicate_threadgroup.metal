#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], threadgroup float* a [[threadgroup(0)]], threadgroup float* b [[threadgroup(0)]]) {
  out[0] = a[0] + b[0];
}
