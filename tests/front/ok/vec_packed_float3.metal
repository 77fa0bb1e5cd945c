#include <metal_stdlib>
using namespace metal;
kernel void k(device packed_float3* p [[buffer(0)]], device float3* q [[buffer(1)]], uint tid [[thread_position_in_grid]]) {
  float3 v = float3(p[tid]);
  q[tid] = v * 2.0f;
}
