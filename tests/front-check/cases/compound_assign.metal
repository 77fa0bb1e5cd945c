#include <metal_stdlib>
using namespace metal;
kernel void k(device uint *out [[buffer(0)]], device float4 *v [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    uint x = tid;
    x += 3;
    x <<= 2;
    x %= 7u;
    x ^= 0xFFu;
    float4 f = v[tid];
    f.xy *= 2.0f;
    f /= f.w;
    half h = 1.0h;
    h += 0.5f;        // converted back to half
    v[tid] = f + float(h);
    out[tid] = x;
}
