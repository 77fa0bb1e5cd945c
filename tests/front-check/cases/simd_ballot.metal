#include <metal_stdlib>
using namespace metal;
kernel void k(device ulong *out [[buffer(0)]], device uint *flags [[buffer(1)]],
              uint tid [[thread_position_in_grid]]) {
    simd_vote v = simd_ballot(flags[tid] != 0);
    ulong bits = static_cast<ulong>(static_cast<simd_vote::vote_t>(v));
    ulong mask = ulong(simd_active_threads_mask());
    bool all_set = simd_all(flags[tid] > 1);
    bool any_set = simd_any(flags[tid] > 2);
    bool first = simd_is_first();
    bool va = v.any();
    bool vall = v.all();
    out[tid] = bits + mask + ulong(all_set) + ulong(any_set) + ulong(first) + ulong(va) + ulong(vall);
}
