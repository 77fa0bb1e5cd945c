// Thread pointers into private arrays and to a scalar, indexed in range (negative indices
// too, from a pointer into the middle): checked mode must report nothing.
// run: --grid 96 --threads 32 x=rand:float32:96 out=zeros:96 n=4
#include <metal_stdlib>
using namespace metal;

inline float dot3(thread const float *p, thread const float *q) {
    float s = 0.0f;
    for (int i = 0; i < 3; i++)
        s += p[i] * q[i];
    return s;
}

kernel void pointers(device const float *x [[buffer(0)]],
                     device float *out [[buffer(1)]],
                     constant uint &n [[buffer(2)]],
                     uint gid [[thread_position_in_grid]])
{
    float a[5] = {x[gid], 1.0f, 2.0f, 3.0f, 4.0f};
    float m = x[gid];
    thread float *mid = a + 2;
    out[gid] = dot3(a, a + 2) + mid[-2] + mid[int(gid % 3)] + (&m)[0] + float(n);
}
