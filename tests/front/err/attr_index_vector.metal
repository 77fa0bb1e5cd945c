#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]], uint2 i [[thread_index_in_simdgroup]]) {
  a[i.x] = 1.0f;
}
