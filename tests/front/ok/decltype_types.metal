#include <metal_stdlib>
using namespace metal;
constant int kScale = 3;
kernel void dt(device float *o [[buffer(0)]], device const half2 *h [[buffer(1)]],
               uint i [[thread_position_in_grid]]) {
    half2 v = h[i];
    decltype(v) w = v * half(2);
    decltype(kScale) k = kScale;
    decltype(w.x + 1.0f) s = w.x + 1.0f;
    o[i] = s * float(k) + float(w.y);
}
