#include <metal_stdlib>
using namespace metal;
// several kernels and a helper used by two of them
static inline float scale(float x) { return x * 0.5f; }
kernel void first(device float *a [[buffer(0)]], uint tid [[thread_position_in_grid]]) { a[tid] = scale(a[tid]); }
kernel void second(device float *a [[buffer(0)]], uint tid [[thread_position_in_grid]]) { a[tid] = scale(2.0f); }
[[kernel]] void third(device float *a [[buffer(0)]]) { a[0] = 1.0f; }
