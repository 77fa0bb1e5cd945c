#include <metal_stdlib>
using namespace metal;
kernel void k(device float *f [[buffer(0)]], device half *h [[buffer(1)]], constant float *cf [[buffer(2)]]) {
    simdgroup_float8x8 m;
    simdgroup_load(m, h);
    simdgroup_store(m, cf);
    simdgroup_float8x8 z = make_filled_simdgroup_matrix<float, 4, 4>(0.0f);
    simdgroup_multiply(m, m, 1.0f);
    simdgroup_load(float4(0), f);
}
