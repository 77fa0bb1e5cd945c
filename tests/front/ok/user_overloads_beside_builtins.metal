// a user overload set sharing a built-in's name: exact built-in matches go to Metal's built-in
#include <metal_stdlib>
using namespace metal;
inline bool simd_shuffle_down(bool data, ushort delta) { return simd_shuffle_down(static_cast<uint>(data), delta); }
inline long simd_shuffle_down(long data, ushort delta) { return as_type<long>(simd_shuffle_down(as_type<uint2>(data), delta)); }
kernel void k(device uint* o [[buffer(0)]], device long* q [[buffer(1)]], uint l [[thread_index_in_simdgroup]]) {
  o[l] = simd_shuffle_down(l * 3u, ushort(1)) + uint(simd_shuffle_down(l == 4u, ushort(1)));
  q[l] = simd_shuffle_down(long(l) * 1000000000000l, ushort(2));
}
