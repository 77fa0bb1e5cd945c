// A private window filled by a loop that runs one past its end (<= instead of <), then
// read back the same way.
// run: --grid 40 --threads 32 x=rand:float32:400 out=zeros:40 n=8
#include <metal_stdlib>
using namespace metal;

kernel void window_sum(device const float *x [[buffer(0)]],
                       device float *out [[buffer(1)]],
                       constant uint &n [[buffer(2)]],
                       uint gid [[thread_position_in_grid]])
{
    float w[8];
    for (uint k = 0; k <= n; k++)
        w[k] = x[gid * 10 + k]; // expect: out-of-bounds
    float s = 0.0f;
    for (uint k = 0; k <= n; k++)
        s += w[k] * float(k + 1); // expect: out-of-bounds
    out[gid] = s;
}
