#include <metal_stdlib>
using namespace metal;
// vector widths agree across position attributes; grid position and size share one type
kernel void a(device float *out [[buffer(0)]], uint2 gid [[thread_position_in_grid]],
              uint3 lid [[thread_position_in_threadgroup]]) { out[0] = 0.0f; }
kernel void b(device float *out [[buffer(0)]], uint2 gid [[thread_position_in_grid]],
              ushort2 size [[threads_per_grid]]) { out[0] = 0.0f; }
kernel void c(device float *out [[buffer(0)]], uint2 gid [[thread_position_in_grid]],
              uint group [[threadgroup_position_in_grid]], uint lane [[thread_index_in_simdgroup]]) { out[0] = 0.0f; }
kernel void d(device float *out [[buffer(0)]], uint x [[thread_position_in_grid]],
              uint y [[thread_position_in_grid]]) { out[0] = 0.0f; }
