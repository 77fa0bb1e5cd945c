#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]], device int* b [[buffer(1)]]) {
  simdgroup_float8x8 m;
  simdgroup_load(m, b);
  simdgroup_store(m, a);
}
