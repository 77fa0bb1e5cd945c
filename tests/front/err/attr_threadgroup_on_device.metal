#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[threadgroup(0)]]) {
  a[0] = 1.0f;
}
