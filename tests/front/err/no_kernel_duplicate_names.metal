#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]]) { a[0] = 1.0f; }
kernel void k(device float* a [[buffer(0)]]) { a[0] = 2.0f; }
