#include <metal_stdlib>
using namespace metal;
device float g_dev;
float g_plain = 1.0f;
constant float needs_init;
constant float not_const = sqrt(2.0f);
kernel void k(device float *out [[buffer(0)]]) { out[0] = 0.0f; }
