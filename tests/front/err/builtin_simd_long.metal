#include <metal_stdlib>
using namespace metal;
kernel void k(device long* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = simd_sum(out[tid]);
}
