#include <metal_stdlib>
using namespace metal;
static inline float dot(float x, float y) { return x * y; }
kernel void k(device float4 *a [[buffer(0)]], device float *o [[buffer(1)]], uint i [[thread_position_in_grid]]) {
    o[i] = dot(a[i], a[i]) + dot(o[i], 2.0f);
}
