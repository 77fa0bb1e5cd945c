#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]]) {
  simdgroup_float8x8 m = make_filled_simdgroup_matrix<float, 4, 4>(1.0f);
  simdgroup_store(m, a);
}
