#include <metal_stdlib>
using namespace metal;
constant bool use_fast [[function_constant(0)]];
kernel void k(device float *o [[buffer(0)]]) { o[0] = use_fast ? 1.0f : 0.0f; }
