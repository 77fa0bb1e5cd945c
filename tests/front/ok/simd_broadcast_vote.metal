#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float x = out[tid];
  float a = simd_broadcast(x, 0) + simd_broadcast_first(x);
  simd_vote v = simd_ballot(x > 0.0f);
  ulong bits = static_cast<ulong>(static_cast<simd_vote::vote_t>(v));
  bool all_pos = simd_all(x > 0.0f);
  bool any_pos = simd_any(x > 0.0f);
  if (simd_is_first() && all_pos && any_pos) out[tid] = a + float(bits);
  simd_vote m = simd_active_threads_mask();
  (void)m;
}
