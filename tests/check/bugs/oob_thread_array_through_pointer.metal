// A helper that takes a thread array as a pointer (as MLX's threadgroup_sum<N> does) and
// runs one past the end of it; a second call passes the address of a scalar.
// run: --grid 64 --threads 32 x=rand:float32:64 out=zeros:64
#include <metal_stdlib>
using namespace metal;

template <int N>
inline void scale_all(thread float *v) {
    for (int i = 0; i <= N; i++)
        v[i] *= 2.0f; // expect: out-of-bounds
}

kernel void doubled(device const float *x [[buffer(0)]],
                    device float *out [[buffer(1)]],
                    uint gid [[thread_position_in_grid]])
{
    float a[4] = {x[gid], 1.0f, 2.0f, 3.0f};
    float m = x[gid];
    scale_all<4>(a);
    scale_all<1>(&m);
    thread float *tail = a + 2;
    out[gid] = a[0] + a[3] + m + tail[1];
}
