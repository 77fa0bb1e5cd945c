#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  float x = out[tid];
  ushort d = 1;
  float a = quad_sum(x) + quad_product(x) + quad_min(x) + quad_max(x);
  float b = quad_prefix_inclusive_sum(x) + quad_prefix_exclusive_product(x);
  float c = quad_shuffle(x, d) + quad_shuffle_up(x, d) + quad_shuffle_down(x, d) + quad_shuffle_xor(x, d) + quad_shuffle_rotate_up(x, d) + quad_broadcast(x, 0) + quad_broadcast_first(x);
  quad_vote v = quad_ballot(x > 0.0f);
  (void)v;
  if (quad_all(x > 0.0f) || quad_any(x < 0.0f) || quad_is_first()) out[tid] = a + b + c;
}
