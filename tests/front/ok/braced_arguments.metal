// braced arguments take the parameter type every candidate declares at their position
#include <metal_stdlib>
using namespace metal;
template <typename T> T loc3(uint3 e, constant const int* strides) { return T(e.x * strides[0] + e.y * strides[1] + e.z * strides[2]); }
float2 scale2(float2 v, float s) { return v * s; }
kernel void k(device float* o [[buffer(0)]], constant int* st [[buffer(1)]], uint3 i [[thread_position_in_grid]]) {
  o[0] = float(loc3<long>({2 * i.x, i.y, i.z + 1}, st)) + scale2({1.0f, 2.0f}, 3.0f).y;
}
