#include <metal_stdlib>
using namespace metal;
struct S { float a; };
kernel void k(device float4 *v [[buffer(0)]], device S *s [[buffer(1)]]) {
    float3 a = v[0].xyz;
    float b = a.w;
    float c = v[0].xr;
    float d = s[0].b;
    float e = s->a.x;
}
