#include <metal_stdlib>
using namespace metal;
// for: the step is in the latch, so continue runs it
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    float s = 0.0f;
    for (int i = 0; i < 8; i++) {
        if (i == 3) continue;
        if (i == 6) break;
        s += float(i);
    }
    for (;;) { break; }
    out[tid] = s;
}
