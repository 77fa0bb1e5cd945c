#include <metal_stdlib>
using namespace metal;
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    float s = 0.0f;
    #pragma unroll
    for (int i = 0; i < 4; ++i) s += float(i);
    #pragma unroll 2
    for (int j = 0; j < 8; ++j) s *= 0.5f;
    out[tid] = s;
}
