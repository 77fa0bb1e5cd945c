#include <metal_stdlib>
using namespace metal;
// exact match beats promotion beats conversion
float pick(float x) { return 1.0f; }
float pick(int x) { return 2.0f; }
float pick2(float x) { return 3.0f; }
float pick2(long x) { return 4.0f; }
float vecf(float4 v) { return v.x; }
float vecf(int4 v) { return float(v.y); }
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    short s = 1;
    half h = 1.0h;
    out[tid] = pick(1.0f) + pick(1) + pick(s) + pick2(h) + vecf(float4(0)) + vecf(int4(1));
}
