#include <metal_stdlib>
using namespace metal;
struct S { float3 v; float w; };
struct P { packed_float3 v; float w; };
kernel void k(device S* s [[buffer(0)]], device P* p [[buffer(1)]], uint tid [[thread_position_in_grid]]) {
  s[tid].w = p[tid].w + s[tid].v.x;
}
