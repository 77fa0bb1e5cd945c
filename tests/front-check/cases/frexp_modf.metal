#include <metal_stdlib>
using namespace metal;
// frexp and modf write their second result through a reference: two pure intrinsics
kernel void k(device float *out [[buffer(0)]], device int *exps [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    float x = out[tid];
    int e;
    float m = frexp(x, e);
    float whole;
    float frac = modf(x, whole);
    float2 w2;
    float2 f2 = modf(float2(x, 1.5f), w2);
    exps[tid] = e;
    out[tid] = m + frac + whole + f2.y + w2.x;
}
