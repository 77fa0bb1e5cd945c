#include <metal_stdlib>
using namespace metal;
kernel void k(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
    float arr[4] = {1, 2, 3, 4};
    thread float &r = arr[2];
    r += 1.0f;
    device float &o = out[tid];
    o = r;
    const thread float &c = arr[0];
    out[0] = c;
}
