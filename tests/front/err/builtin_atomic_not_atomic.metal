#include <metal_stdlib>
using namespace metal;
kernel void k(device int* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  atomic_fetch_add_explicit(out, 1, memory_order_relaxed);
}
