#include <metal_stdlib>
using namespace metal;
// indices left out take the lowest free ones, in order, around the explicit ones
kernel void k(device float *a, device float *b [[buffer(0)]], device float *c,
              threadgroup float *t, threadgroup float *u [[threadgroup(0)]],
              uint tid [[thread_position_in_grid]]) {
    a[tid] = b[tid] + c[tid] + t[0] + u[0];
}
