#include <metal_stdlib>
using namespace metal;
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    float m[2][3] = {{1, 2, 3}, {4, 5, 6}};
    int idx[4];
    for (int i = 0; i < 4; ++i) idx[i] = i % 2;
    m[idx[1]][2] = 7.0f;
    out[tid] = m[1][2] + m[0][0];
}
