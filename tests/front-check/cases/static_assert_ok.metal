#include <metal_stdlib>
using namespace metal;
struct S { float4 v; int x; };
static_assert(sizeof(S) == 32, "S is 32 bytes");
static_assert(alignof(float3) == 16);
kernel void k(device S *s [[buffer(0)]]) { s[0].x = 1; }
