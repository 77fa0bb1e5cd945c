#include <metal_stdlib>
using namespace metal;
kernel void k(device const half *a [[buffer(0)]], device half *c [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    threadgroup half tile[64];
    simdgroup_half8x8 ma;
    simdgroup_half8x8 mb = make_filled_simdgroup_matrix<half, 8, 8>(1.0h);
    simdgroup_half8x8 mc;
    simdgroup_load(ma, a);
    simdgroup_load(mb, tile, 8, ulong2(0, 0), true);
    simdgroup_multiply(mc, ma, mb);
    simdgroup_multiply_accumulate(mc, ma, mb, mc);
    simdgroup_store(mc, c, 8);
    simdgroup_store(mc, tile);
}
