#include <metal_stdlib>
using namespace metal;
struct Inner { float2 p; };
struct Outer { Inner in; float3 c; };
kernel void k(device Outer* o [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  o[tid].in.p.y = 1.0f;
  o[tid].c.z = o[tid].in.p.x;
}
