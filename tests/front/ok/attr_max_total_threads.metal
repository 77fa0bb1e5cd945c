#include <metal_stdlib>
using namespace metal;
[[max_total_threads_per_threadgroup(256)]]
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = 0.0f;
}
