#include <metal_stdlib>
using namespace metal;
kernel void k(device const float *a [[buffer(0)]], device float *c [[buffer(1)]],
              threadgroup float *tile [[threadgroup(0)]]) {
    simdgroup_float8x8 ma, mb;
    simdgroup_matrix<float, 8, 8> acc = make_filled_simdgroup_matrix<float, 8, 8>(0.f);
    simdgroup_load(ma, a, 8);
    simdgroup_load(mb, tile, 8, ulong2(0, 0), true);
    simdgroup_multiply_accumulate(acc, ma, mb, acc);
    simdgroup_half8x8 h = make_filled_simdgroup_matrix<half, 8, 8>(1.0h);
    simdgroup_store(acc, c, 8);
    c[0] = acc.thread_elements()[0];
}
