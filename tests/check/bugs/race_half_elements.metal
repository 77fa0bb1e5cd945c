// Two threads per half element: each pair writes one half with different values. Bytes,
// not words, are the unit: neighbouring halves alone would be fine.
// run: --grid 64 --threads 64 data=rand:float32:64 out=zeros:32
#include <metal_stdlib>
using namespace metal;

kernel void squash(device const float *data [[buffer(0)]],
                   device half *out [[buffer(1)]],
                   uint gid [[thread_position_in_grid]])
{
    out[gid >> 1] = half(data[gid] + float(gid)); // expect: data-race
}
