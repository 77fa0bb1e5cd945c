#include <metal_stdlib>
using namespace metal;
kernel void k(device float *f [[buffer(0)]], threadgroup float *t [[threadgroup(0)]]) {
    float3 v = float3(0);
    half h = as_type<half>(f[0]);
    float4 w = as_type<float4>(v.xy);
    int i = reinterpret_cast<int>(f[0]);
    device float *d = reinterpret_cast<device float *>(t);
    int4 x = static_cast<int4>(v);
}
