#include <metal_stdlib>
using namespace metal;
template <typename T> T pair_sum(T a, T b) { return a + b; }
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = pair_sum(1.0f, 2);
}
