#include <metal_stdlib>
using namespace metal;
kernel void k(device float *p [[buffer(0)]], device uint *u [[buffer(1)]]) {
    p[0] = numeric_limits<float>::infinity() + metal::numeric_limits<half>::max();
    threadgroup_barrier(metal::mem_flags::mem_device | mem_flags::mem_threadgroup);
    simdgroup_barrier(mem_flags::mem_none);
    simd_vote vote = simd_ballot(p[0] > 0.0f);
    u[0] = uint(simd_vote::vote_t(vote));
    p[1] = metal::fast::sqrt(p[1]) + ::metal::abs(p[2]);
    using metal::min;
    p[2] = min(p[0], p[1]);
}
