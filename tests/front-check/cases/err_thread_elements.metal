#include <metal_stdlib>
using namespace metal;
kernel void k(device float *out [[buffer(0)]]) {
    simdgroup_float8x8 m = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    out[0] = m.thread_elements()[0];
}
