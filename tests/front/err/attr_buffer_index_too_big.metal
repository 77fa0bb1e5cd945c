#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(99)]]) {
  a[0] = 1.0f;
}
