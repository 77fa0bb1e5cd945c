#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]], uint t) {
  a[t] = 1.0f;
}
