#include <metal_stdlib>
using namespace metal;
// every position attribute, in a form MSL allows
kernel void k(device uint *out [[buffer(0)]],
              uint3 a [[thread_position_in_grid]], uint3 b [[threads_per_grid]],
              ushort3 c [[thread_position_in_threadgroup]], ushort3 d [[threads_per_threadgroup]],
              ushort3 e [[dispatch_threads_per_threadgroup]], uint3 f [[threadgroup_position_in_grid]],
              uint3 g [[threadgroups_per_grid]], uint h [[thread_index_in_threadgroup]],
              ushort i [[thread_index_in_simdgroup]], uint j [[simdgroup_index_in_threadgroup]],
              uint k2 [[threads_per_simdgroup]], uint l [[simdgroups_per_threadgroup]],
              uint m [[dispatch_simdgroups_per_threadgroup]], uint n [[thread_execution_width]],
              uint o [[thread_index_in_quadgroup]], uint p [[quadgroup_index_in_threadgroup]],
              uint q [[quadgroups_per_threadgroup]], uint r [[dispatch_quadgroups_per_threadgroup]]) {
    out[a.x] = b.y + c.z + d.x + e.y + f.z + g.x + h + i + j + k2 + l + m + n + o + p + q + r;
}
