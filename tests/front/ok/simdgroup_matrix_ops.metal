#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]], device float* b [[buffer(1)]], device float* c [[buffer(2)]]) {
  simdgroup_float8x8 ma, mb, mc;
  simdgroup_load(ma, a, 8);
  simdgroup_load(mb, b, 8, ulong2(0, 0), true);
  mc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
  simdgroup_multiply_accumulate(mc, ma, mb, mc);
  simdgroup_multiply(mc, mc, ma);
  simdgroup_store(mc, c, 8);
}
