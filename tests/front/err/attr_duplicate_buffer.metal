#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]], device float* b [[buffer(0)]]) {
  a[0] = b[0];
}
