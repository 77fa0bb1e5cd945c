#include <metal_stdlib>
using namespace metal;
[[max_total_threads_per_threadgroup(2048)]]
kernel void big(device float *out [[buffer(0)]]) { out[0] = 0.0f; }
[[max_total_threads_per_threadgroup(0)]]
kernel void zero(device float *out [[buffer(0)]]) { out[0] = 0.0f; }
kernel float returns(device float *out [[buffer(0)]]) { return 1.0f; }
kernel void plain(float x, thread float *p) {}
kernel void twice(device float *out [[buffer(0)]]) {}
kernel void twice(device float *out [[buffer(0)]]) {}
