#include <metal_stdlib>
using namespace metal;
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    float lo = INFINITY;
    float bad = NAN;
    out[tid] = min(out[tid], lo) + (isnan(bad) ? 1.0f : 0.0f) + FLT_MAX + MAXFLOAT;
}
