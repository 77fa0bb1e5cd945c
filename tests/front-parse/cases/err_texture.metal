#include <metal_stdlib>
using namespace metal;
kernel void k(texture2d<float, access::read> tex [[texture(0)]],
              device float4 *out [[buffer(0)]],
              uint2 gid [[thread_position_in_grid]]) {
    out[0] = tex.read(gid);
}
kernel void k2(depth2d<float> d, texturecube_array<half> c, texture_buffer<float> b,
               device float *p [[buffer(0)]]) {
    p[0] = 1.0f;
}
