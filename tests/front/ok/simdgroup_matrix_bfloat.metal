#include <metal_stdlib>
using namespace metal;
kernel void k(device bfloat* a [[buffer(0)]]) {
  simdgroup_bfloat8x8 m;
  simdgroup_load(m, a);
  simdgroup_store(m, a);
}
