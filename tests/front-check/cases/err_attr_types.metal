#include <metal_stdlib>
using namespace metal;
kernel void k(device float *out [[buffer(0)]], float gid [[thread_position_in_grid]],
              uint2 lane [[thread_index_in_simdgroup]], int tg [[threads_per_threadgroup]],
              packed_uint3 p [[threadgroup_position_in_grid]], uint4 q [[threads_per_grid]]) {
    out[0] = 0.0f;
}
