#include <metal_stdlib>
using namespace metal;
kernel void k(device float* out [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  out[tid] = simd_shuffle(out[tid]);
}
