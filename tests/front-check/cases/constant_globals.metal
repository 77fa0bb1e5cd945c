#include <metal_stdlib>
using namespace metal;
// program-scope constants: scalars fold into their uses, arrays are module globals
constant float weights[3] = {0.25f, 0.5f, 0.25f};
constant int RADIUS = 1;
constexpr constant uint WIDTH = RADIUS * 2 + 1;
constant float2 offsets[2] = {float2(1, 0), float2(0, 1)};
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    float s = 0.0f;
    for (uint i = 0; i < WIDTH; ++i) s += weights[i];
    constexpr int local_n = 4;
    float arr[local_n];
    arr[0] = offsets[1].y;
    out[tid] = s + arr[0] + float(RADIUS);
}
