#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]], device half* h [[buffer(1)]]) {
  simdgroup_float8x8 fa;
  simdgroup_half8x8 ha;
  simdgroup_load(fa, a);
  simdgroup_load(ha, h);
  simdgroup_store(fa, a, 8);
  simdgroup_store(ha, h);
}
