#include <metal_stdlib>
using namespace metal;
kernel void k(device float *o [[buffer(0)]]) { o[0] = cbrt(o[1]) + metal::hypot(o[0], o[1]); }
