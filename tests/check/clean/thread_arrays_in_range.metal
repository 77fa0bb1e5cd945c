// Private arrays, an array of arrays, an array in a struct and a vector, all indexed with
// run-time values that stay in range: checked mode must report nothing.
// run: --grid 96 --threads 32 x=rand:float32:96 out=zeros:96 n=4
#include <metal_stdlib>
using namespace metal;

struct Acc {
    float part[4];
};

kernel void mix(device const float *x [[buffer(0)]],
                device float *out [[buffer(1)]],
                constant uint &n [[buffer(2)]],
                uint gid [[thread_position_in_grid]])
{
    float a[4];
    float m[2][4];
    Acc acc = {{0.0f, 0.0f, 0.0f, 0.0f}};
    float4 v = float4(1.0f, 2.0f, 3.0f, 4.0f);
    for (uint k = 0; k < n; k++) {
        a[k] = x[gid] * float(k);
        m[k & 1][k] = a[k] + v[k];
        m[(k + 1) & 1][k] = 0.0f;
        acc.part[(gid + k) % n] += a[k];
    }
    out[gid] = a[gid % n] + m[gid & 1][gid % 4] + acc.part[n - 1] + v[gid & 3];
}
